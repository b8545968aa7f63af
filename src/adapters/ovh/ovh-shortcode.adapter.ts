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

/** An OVH SMS service's short code or sender name, through the OVH API. */
@Injectable()
export class OvhShortcodeAdapter extends OvhSmsAdapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'ovh_shortcode',
    alias: 'adapters\\OvhSmsShortcodeAdapter',
    callbackId: 'ovh_sms_shortcode_adapter',
    name: 'OVH SMS short code',
    description: 'Sends through the OVH SMS API from a short code or sender name.',
    fields: [
      ...OVH_SERVICE_FIELDS,
      field('sender', 'Sender name registered on the service, 3 to 11 characters.', false),
      field(
        'no_stop_clause',
        '1 (or true, on, yes) so that OVH does not append its "STOP" clause, as RaspiSMS allowed.',
        false,
      ),
    ],
    hideData: true,
    settings: [OVH_API_URL],
  };

  /** Answers to the service's short codes come back to the service itself. */
  protected line(data: AdapterData): OvhLine {
    return {
      path: smsPath(data.service_name),
      notFound: `OVH has no SMS service ${data.service_name} for these credentials (HTTP 404): check service_name.`,
    };
  }

  protected override dataProblem(data: AdapterData): string | null {
    return checkSender(data.sender ?? '');
  }

  /** A sender name must be one the service registered; without one there is nothing more. */
  protected lineCheck(data: AdapterData): LineCheck | null {
    const sender = data.sender ?? '';
    return sender
      ? {
          path: smsPath(data.service_name, 'senders', sender),
          notFound: `${sender} is not a sender of OVH SMS service ${data.service_name}: check sender.`,
        }
      : null;
  }

  /**
   * Without a sender, OVH sends from one of its short codes and, with `senderForResponse`,
   * lets the recipient answer it; with one, OVH shows the name.
   */
  protected job(data: AdapterData): Record<string, unknown> {
    const sender = data.sender ?? '';
    return {
      senderForResponse: !sender,
      ...(sender ? { sender } : {}),
      ...(/^(1|true|on|yes)$/i.test(data.no_stop_clause ?? '') ? { noStopClause: true } : {}),
    };
  }
}

/** Why `sender` cannot be an OVH sender name, or null when it can (or is empty). */
function checkSender(sender: string): string | null {
  return sender && (sender.length < 3 || sender.length > 11)
    ? 'sender must be 3 to 11 characters long.'
    : null;
}
