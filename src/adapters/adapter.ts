import { PhoneStatus } from '../phones/entities/phone.entity';
import { AdapterDescriptor } from './adapter.descriptor';

/** A phone's adapter data: its descriptor's fields, as strings. */
export type AdapterData = Readonly<Record<string, string>>;

/**
 * What smsgw asks of a provider. Each provider is one folder under `src/adapters/` with one
 * class implementing this, listed once in `adapters.module.ts`.
 */
export interface Adapter {
  readonly descriptor: AdapterDescriptor;

  /**
   * Checks that the data work with the provider (for provider adapters, a credentials check
   * against its API). Resolves to null when they do, else to why not, in words for the user.
   */
  test(data: AdapterData): Promise<string | null>;

  /** The phone's status as the provider reports it. */
  checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>>;
}

/** A descriptor field, `number` set when its value must be a valid phone number. */
export const field = (name: string, description: string, required: boolean, number = false) => ({
  name,
  description,
  required,
  ...(number ? { number: true } : {}),
});

/**
 * The first required field of `descriptor` that `data` leaves empty, as a sentence; null when
 * none is. Providers check it before any network call so a partial entry never reaches them.
 */
export function missingRequiredField(
  descriptor: AdapterDescriptor,
  data: AdapterData,
): string | null {
  const missing = descriptor.fields.find(
    (candidate) => candidate.required && !String(data[candidate.name] ?? '').trim(),
  );
  return missing ? `${missing.name} is required.` : null;
}
