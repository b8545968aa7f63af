import { Injectable } from '@nestjs/common';
import { AdapterData, field } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  OCTOPUSH_ACCOUNT_FIELDS,
  OCTOPUSH_API_URL,
  OctopushSmsAdapter,
  checkOctopushSender,
} from './octopush-sms';

/** An Octopush account sending from a random short code, or from a sender name. */
@Injectable()
export class OctopushShortcodeAdapter extends OctopushSmsAdapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'octopush_shortcode',
    alias: 'adapters\\OctopushShortcodeAdapter',
    callbackId: 'octopush_shortcode_adapter',
    name: 'Octopush short code',
    description: 'Sends through the Octopush API from a short code or a sender name.',
    fields: [
      ...OCTOPUSH_ACCOUNT_FIELDS,
      field(
        'sender',
        'Sender name, 3 to 11 letters or digits; none to send from a short code.',
        false,
      ),
    ],
    hideData: true,
    settings: [OCTOPUSH_API_URL],
  };

  protected override dataProblem(data: AdapterData): string | null {
    return checkOctopushSender(data.sender ?? '');
  }

  /**
   * Recipients can answer a short code, never a sender name: answers are asked for only
   * without one.
   */
  protected campaign(data: AdapterData): Record<string, unknown> {
    const sender = data.sender ?? '';
    return sender ? { sender } : { with_replies: true };
  }
}
