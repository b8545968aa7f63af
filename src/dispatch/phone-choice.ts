/** A phone the cascade may choose, with what it has left to spend (Infinity: no limit). */
export interface PhoneCandidate {
  id: number;
  status: string;
  priority: number;
  mms: boolean;
  remaining: number;
  /**
   * How long until it can send (ms): 0 for a phone that is not paced or whose turn comes within
   * the claim's reach; the wait for its next sending slot otherwise.
   */
  readyIn: number;
}

export interface ChoiceRules {
  mms: boolean;
  /** The user's `phone_limit` setting. */
  phoneLimit: boolean;
  /** The user's `phone_priority` setting. */
  phonePriority: boolean;
}

/**
 * RaspiSMS's cascade (docs/dispatch.md#phone-choice) over the candidates (the phone group's, or all
 * the user's): MMS-capable for an MMS, `available`, with volume left when limits apply, highest
 * priority when priorities apply, then those that can send soonest, then at random. A step that would leave nothing keeps the
 * previous set, so a message still gets a phone whose send then fails with the reason, rather than
 * none.
 */
export function choosePhone<T extends PhoneCandidate>(
  candidates: readonly T[],
  rules: ChoiceRules,
  random: () => number = Math.random,
): T | null {
  let chosen = candidates;
  const narrow = (keep: (phone: T) => boolean) => {
    const kept = chosen.filter(keep);
    if (kept.length > 0) {
      chosen = kept;
    }
  };
  if (rules.mms) {
    narrow((phone) => phone.mms);
  }
  narrow((phone) => phone.status === 'available');
  if (rules.phoneLimit) {
    narrow((phone) => phone.remaining > 0);
  }
  if (rules.phonePriority) {
    const highest = Math.max(...chosen.map((phone) => phone.priority));
    narrow((phone) => phone.priority === highest);
  }
  const soonest = Math.min(...chosen.map((phone) => phone.readyIn));
  narrow((phone) => phone.readyIn === soonest);
  if (chosen.length === 0) {
    return null;
  }
  return chosen[Math.floor(random() * chosen.length)] ?? chosen[0];
}
