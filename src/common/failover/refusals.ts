/**
 * The refusals a sent entry keeps: the phones a recipient went through before the one that sent
 * it, or before the last one that refused it (docs/dispatch.md#failover).
 */

/** A phone's refusal of a recipient that then went through another phone. */
export interface Refusal {
  id_phone: number;
  adapter: string;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  at: string;
  reason: string;
}

/** The refusals kept on an outbox row or a sent entry, read; none when null. */
export function readRefusals(stored: string | null | undefined): Refusal[] {
  return stored ? (JSON.parse(stored) as Refusal[]) : [];
}

/** Refusals as stored: null for none, as rows without any have always been. */
export function storedRefusals(refusals: readonly Refusal[]): string | null {
  return refusals.length > 0 ? JSON.stringify(refusals) : null;
}
