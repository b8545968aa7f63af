import type { PhoneLimit } from '../../api/phones';

/** A rate as people read it: messages per second, or none. */
export function rateText(rate: number | null): string {
  return rate === null ? 'No pacing' : `${rate} a second`;
}

export function limitsText(limits: readonly PhoneLimit[]): string {
  return limits.length === 0
    ? 'None'
    : limits.map((limit) => `${limit.volume} since ${limit.startpoint}`).join('; ');
}
