import { Inject, Injectable } from '@nestjs/common';
import { Adapter } from './adapter';

export const ADAPTER_LIST = Symbol('ADAPTER_LIST');

/** The adapters by id and by RaspiSMS alias (docs/adapters.md#descriptor). */
@Injectable()
export class AdapterRegistry {
  private readonly byName = new Map<string, Adapter>();
  private readonly byCallbackId = new Map<string, Adapter>();

  constructor(@Inject(ADAPTER_LIST) readonly adapters: readonly Adapter[]) {
    for (const adapter of adapters) {
      const { id, alias } = adapter.descriptor;
      this.byName.set(id, adapter);
      if (alias) {
        // `adapters\TestAdapter`, also with PHP's leading backslash.
        this.byName.set(alias, adapter);
        this.byName.set(`\\${alias}`, adapter);
      }
      if (adapter.descriptor.callbackId) {
        this.byCallbackId.set(adapter.descriptor.callbackId, adapter);
      }
    }
  }

  /** The adapter named by its id or RaspiSMS alias. */
  find(name: string): Adapter | undefined {
    return this.byName.get(name);
  }

  /**
   * The adapter a provider callback names: by id or alias, or by the RaspiSMS `meta_uid` that
   * callback URLs set up for RaspiSMS carry.
   */
  findForCallback(name: string): Adapter | undefined {
    return this.find(name) ?? this.byCallbackId.get(name);
  }

  /** Whether listings must omit a phone's `adapter_data`; an unknown adapter's are kept secret. */
  hidesData(adapterId: string): boolean {
    return this.find(adapterId)?.descriptor.hideData ?? true;
  }

  /** The names of the adapter's secret fields, in descriptor order; none for an unknown one. */
  secretFields(adapterId: string): string[] {
    return (this.find(adapterId)?.descriptor.fields ?? [])
      .filter((field) => field.secret)
      .map((field) => field.name);
  }

  /** The names of every adapter's secret fields: what the logs must never show. */
  secretFieldNames(): Set<string> {
    return new Set(this.adapters.flatMap((adapter) => this.secretFields(adapter.descriptor.id)));
  }
}
