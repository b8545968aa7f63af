import { Injectable } from '@nestjs/common';
import { AdapterData, field } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { OCTOPUSH_ACCOUNT_FIELDS, OCTOPUSH_API_URL, OctopushSmsAdapter } from './octopush-sms';

/** A virtual number rented at Octopush: messages leave from it and answers come back to it. */
@Injectable()
export class OctopushVirtualNumberAdapter extends OctopushSmsAdapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'octopush_virtual_number',
    alias: 'adapters\\OctopushVirtualNumberAdapter',
    callbackId: 'octopush_virtual_number_adapter',
    name: 'Octopush virtual number',
    description: 'Sends through the Octopush API from a virtual number.',
    fields: [
      ...OCTOPUSH_ACCOUNT_FIELDS,
      field('number', 'The virtual number, international format.', true, true),
    ],
    hideData: true,
    settings: [OCTOPUSH_API_URL],
  };

  protected campaign(data: AdapterData): Record<string, unknown> {
    return { sender: data.number, with_replies: true };
  }
}
