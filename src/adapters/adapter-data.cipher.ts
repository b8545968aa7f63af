import { Injectable } from '@nestjs/common';
import { SecretCipher } from '../common/secrets/secret-cipher';
import { adapterDataScope } from '../common/secrets/adapter-data-scope';
import { openFields, parseTextRecord, sealFields } from '../common/secrets/sealed-fields';
import { AdapterData } from './adapter';
import { AdapterRegistry } from './adapter.registry';

/** Whose adapter data it is: the phone and its owner, which the encryption is bound to. */
export interface DataOwner {
  id: number;
  id_user: number;
}

/** A phone as stored (its `phone` row), for what reads its adapter data. */
export interface StoredPhone extends DataOwner {
  adapter: string;
  adapter_data: string | null;
}

/** A phone's adapter data as the adapter needs it, and the secret fields that could not be read. */
export interface OpenedData {
  data: AdapterData;
  /** Secret fields whose stored value does not decrypt: they must be entered again. */
  unreadable: string[];
}

/** A phone's adapter data as get_phone shows it: never a secret's value. */
export interface ShownData {
  /** The stored value of each of the adapter's non-secret fields that has one. */
  data: Record<string, string>;
  /** The secret fields with a stored value that decrypts. */
  secretsSet: string[];
  /** The secret fields with a stored value that does not decrypt. */
  unreadable: string[];
}

/**
 * The one way in and out of `phone.adapter_data`: the fields the adapter's descriptor flags as
 * secret are stored encrypted, each bound to its field, phone and owner, and never listed.
 * Everything that reads a phone's data for an adapter (phones, dispatch, callbacks, listeners)
 * opens it here.
 */
@Injectable()
export class AdapterDataCipher {
  constructor(
    private readonly adapters: AdapterRegistry,
    private readonly cipher: SecretCipher,
  ) {}

  /** The `adapter_data` column of a phone of `adapter` holding `data`. */
  seal(adapter: string, data: AdapterData, owner: DataOwner): string {
    return JSON.stringify(
      sealFields(this.cipher, this.adapters.secretFields(adapter), data, adapterDataScope(owner)),
    );
  }

  /** The phone's data as its adapter needs it. */
  open(phone: StoredPhone): OpenedData {
    const { values, unreadable } = openFields(
      this.cipher,
      this.adapters.secretFields(phone.adapter),
      parseTextRecord(phone.adapter_data),
      adapterDataScope(phone),
    );
    return { data: values, unreadable };
  }

  /**
   * What a client editing the phone may see of its data: the values of the descriptor's
   * non-secret fields, and which secrets are set. Opened as the dispatch opens it, so that a
   * secret said to be set is one the phone can send with. Fields the descriptor does not have
   * (left by an older version) are not shown: nothing says they are not secrets. An unknown
   * adapter shows nothing.
   */
  shown(phone: StoredPhone): ShownData {
    const fields = this.adapters.find(phone.adapter)?.descriptor.fields ?? [];
    const { data, unreadable } = this.open(phone);
    const shown: ShownData = { data: {}, secretsSet: [], unreadable };
    for (const field of fields) {
      const value = data[field.name];
      // An optional secret sent empty is stored empty: it has no value.
      if (value === undefined || (field.secret && value === '')) {
        continue;
      }
      if (field.secret) {
        shown.secretsSet.push(field.name);
      } else {
        shown.data[field.name] = value;
      }
    }
    return shown;
  }

  /**
   * `adapter_data` as listings show it: nothing (undefined) for adapters that hide their data
   * or are unknown, else the stored JSON without its secret fields.
   */
  visible(phone: Pick<StoredPhone, 'adapter' | 'adapter_data'>): string | null | undefined {
    if (this.adapters.hidesData(phone.adapter)) {
      return undefined;
    }
    const secrets = this.adapters.secretFields(phone.adapter);
    if (secrets.length === 0 || phone.adapter_data === null) {
      return phone.adapter_data;
    }
    const data = parseTextRecord(phone.adapter_data);
    for (const field of secrets) {
      delete data[field];
    }
    return JSON.stringify(data);
  }
}

/**
 * What went wrong with secret fields that could not be read (`OpenedData.unreadable`), as a
 * clause for the user: "the phone's stored password cannot be decrypted (…)".
 */
export function unreadableClause(fields: readonly string[]): string {
  return (
    `the phone's stored ${fields.join(' and ')} cannot be decrypted (the server's ` +
    'secrets key changed, or what is stored was altered)'
  );
}
