import type { LookupAddress } from 'node:dns';
import type { RefusedRange } from '../../common/net/outbound-policy';
import type { AdapterData, SendResult } from '../adapter';
import type { BindOutcome, SmppTimings } from './smpp.bind';
import type { Delivery } from './smpp.codec';

/*
 * What crosses between the main thread (smpp.thread.ts) and the SMPP thread (smpp.worker.ts).
 * Links are numbered by the main thread; each send has a slot, a small integer reused once its
 * result is back, which indexes its written flag in the shared pages (see `PAGE_SLOTS`).
 */

/** The written flags of this many slots share one SharedArrayBuffer. */
export const PAGE_SLOTS = 4096;

/** How many sessions a link opens, and how many messages each may have unanswered at once. */
export interface SmppLinkShape {
  binds: number;
  maxPendingSubmits: number;
}

/**
 * Where a link's sessions connect, as the main thread's outbound policy decided: an address it
 * refused (which it will refuse again), or the host to connect to, a name being resolved and
 * checked by the main thread at each connection.
 */
export type ConnectTarget =
  { host: string } | { refusal: { host: string; address: string; range: RefusedRange } };

export interface OpenLink {
  type: 'open';
  link: number;
  data: AdapterData;
  timeoutMs: number;
  timings: SmppTimings;
  shape: SmppLinkShape;
  target: ConnectTarget;
  listening: boolean;
}

/**
 * The sends of one tick of the main thread, column by column. A column of one value holds it
 * for every send: a campaign sends one text, through one link, to thousands.
 */
export interface SubmitBatch {
  type: 'submit';
  links: Int32Array;
  slots: Int32Array;
  destinations: string[];
  texts: string[];
  /** 1 for a flash message. */
  flash: Uint8Array;
  /** Seconds, NaN for none. */
  validity: Float64Array;
}

/** The error of a lookup, as the thread rebuilds it for node:net. */
export interface LookupError {
  message: string;
  code?: string;
  refusal?: { host: string; address: string; range: RefusedRange };
}

export type ToThread =
  | OpenLink
  | SubmitBatch
  | { type: 'adopt'; link: number; data: AdapterData }
  | { type: 'listening'; link: number; on: boolean }
  | { type: 'bound'; request: number; link: number }
  | { type: 'boundWith'; request: number; link: number; password: string }
  | { type: 'close'; request: number; link: number }
  | { type: 'page'; index: number; buffer: SharedArrayBuffer }
  | { type: 'looked-up'; request: number; error: LookupError | null; addresses: LookupAddress[] }
  | { type: 'delivered'; request: number; status: number };

/** Results of sends, `sent` ones as two columns, the rarer others whole. */
export interface ResultBatch {
  type: 'results';
  sentSlots: Int32Array;
  uids: string[];
  otherSlots: Int32Array;
  others: SendResult[];
}

export type LogLevel = 'log' | 'warn';

export interface ThreadLog {
  type: 'log';
  logger: string;
  level: LogLevel;
  message: string;
}

export type FromThread =
  | ResultBatch
  | ThreadLog
  | { type: 'reply'; request: number; value: BindOutcome | boolean | null }
  | { type: 'lookup'; request: number; hostname: string; family: number; all: boolean }
  | { type: 'deliver'; request: number; link: number; delivery: Delivery };

/**
 * Nest's Logger, as far as the sessions use it: the thread posts its lines to the main thread,
 * which logs them under the same logger name.
 */
export class ThreadLogger {
  static post: (log: ThreadLog) => void = () => undefined;

  constructor(private readonly name: string) {}

  log(message: string): void {
    ThreadLogger.post({ type: 'log', logger: this.name, level: 'log', message });
  }

  warn(message: string): void {
    ThreadLogger.post({ type: 'log', logger: this.name, level: 'warn', message });
  }
}
