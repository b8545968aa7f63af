import { Injectable } from '@nestjs/common';
import { Adapter } from './adapter';
import { AdapterRegistry } from './adapter.registry';

/** One field of an adapter's data as get_adapters lists it: every flag present. */
export interface AdapterFieldView {
  name: string;
  description: string;
  required: boolean;
  secret: boolean;
  number: boolean;
}

/** An adapter as get_adapters lists it (docs/api.md#get_adapters). */
export interface AdapterView {
  id: string;
  alias: string | null;
  name: string;
  description: string;
  hide_data: boolean;
  fields: AdapterFieldView[];
  capabilities: { flash: boolean; mms: boolean };
}

/**
 * get_adapters: the registry's descriptors, so that a client builds a phone's form from them and
 * a new provider needs no change outside its folder.
 */
@Injectable()
export class AdaptersService {
  constructor(private readonly registry: AdapterRegistry) {}

  list(): AdapterView[] {
    return this.registry.adapters.map(view);
  }
}

function view({ descriptor, capabilities }: Adapter): AdapterView {
  return {
    id: descriptor.id,
    alias: descriptor.alias,
    name: descriptor.name,
    description: descriptor.description,
    hide_data: descriptor.hideData,
    fields: descriptor.fields.map((field) => ({
      name: field.name,
      description: field.description,
      required: field.required,
      secret: field.secret ?? false,
      number: field.number ?? false,
    })),
    // What the dispatch does with a message; the other capabilities are how it runs the adapter.
    capabilities: { flash: capabilities.flash, mms: capabilities.mms },
  };
}
