import { Injectable } from '@nestjs/common';
import { AdapterData, field } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  LineCheck,
  OVH_API_URL,
  OVH_SERVICE_FIELDS,
  OvhLine,
  OvhSmsAdapter,
  smsPath,
} from './ovh-sms';

/**
 * A virtual number of an OVH SMS service, through the OVH API: messages leave from the
 * number, so recipients can answer it.
 */
@Injectable()
export class OvhVirtualNumberAdapter extends OvhSmsAdapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'ovh_virtual_number',
    alias: 'adapters\\OvhSmsVirtualNumberAdapter',
    callbackId: 'ovh_sms_virtual_number_adapter',
    name: 'OVH SMS virtual number',
    description: 'Sends through the OVH SMS API from a virtual number.',
    fields: [
      ...OVH_SERVICE_FIELDS,
      field('number', 'The virtual number, international format.', true, true),
    ],
    hideData: true,
    settings: [OVH_API_URL],
  };

  protected line(data: AdapterData): OvhLine {
    return {
      path: smsPath(data.service_name, 'virtualNumbers', internationalPrefixForm(data.number)),
      notFound: `OVH has no virtual number ${data.number} on SMS service ${data.service_name} for these credentials (HTTP 404): check service_name and number.`,
    };
  }

  protected lineCheck(data: AdapterData): LineCheck {
    return {
      path: this.line(data).path,
      notFound: `The number ${data.number} is not a virtual number of OVH SMS service ${data.service_name}: check number.`,
    };
  }

  protected job(): Record<string, unknown> {
    return {};
  }
}

/** OVH names virtual numbers with the 00 international prefix: +33612345678 is 0033612345678. */
function internationalPrefixForm(number: string): string {
  return number.replace(/^\+/, '00');
}
