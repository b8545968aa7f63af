import { ProviderSetting } from '../config/provider-settings';

/** One field of an adapter's data (docs/adapters.md#descriptor). */
export interface AdapterDataField {
  name: string;
  description: string;
  required: boolean;
  /** The value must be a valid phone number; it is stored normalised to E.164. */
  number?: boolean;
  /**
   * A credential: encrypted in the database, left out of every API answer and of the logs,
   * whatever the parameter name it travels under.
   */
  secret?: boolean;
}

/**
 * What smsgw knows of an adapter before talking to it (docs/adapters.md#descriptor): everything
 * about a provider that code outside its folder needs is here, so that no list elsewhere names it.
 */
export interface AdapterDescriptor {
  id: string;
  /** The RaspiSMS class name, accepted wherever an adapter is named. */
  alias: string | null;
  /**
   * RaspiSMS's `meta_uid` of the adapter, which the callback URLs its users gave their
   * providers carry: accepted as the adapter of a callback, beside the id and the alias.
   */
  callbackId?: string;
  name: string;
  description: string;
  fields: AdapterDataField[];
  /** Listings omit `adapter_data` (credentials) for these adapters. */
  hideData: boolean;
  /** The server settings the adapter reads (where its provider's API is…), checked at boot. */
  settings?: readonly ProviderSetting[];
}
