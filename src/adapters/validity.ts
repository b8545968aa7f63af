/**
 * The time left of a message's validity (OutgoingSms.validitySeconds) as a provider takes it:
 * `value`, already in the provider's unit and rounded down, brought within its bounds. A value
 * below the provider's least is raised to it (the message still had time left when handed over);
 * one above its most is lowered to it.
 */
export function within(value: number, least: number, most: number): number {
  return Math.min(most, Math.max(least, Math.floor(value)));
}
