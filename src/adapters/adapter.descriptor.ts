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

/** What the API knows of an adapter before talking to it (docs/adapters.md#descriptor). */
export interface AdapterDescriptor {
  id: string;
  /** The RaspiSMS class name, accepted wherever an adapter is named. */
  alias: string | null;
  name: string;
  description: string;
  fields: AdapterDataField[];
  /** Listings omit `adapter_data` (credentials) for these adapters. */
  hideData: boolean;
}
