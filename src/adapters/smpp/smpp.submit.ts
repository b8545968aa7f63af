import type { OutgoingPdu } from 'smpp';
import { EncodedMessage, NPI_ISDN, SourceAddress, TON_INTERNATIONAL } from './smpp.codec';

/** SMPP 3.4 §4.4: submit_sm's command_id. */
const SUBMIT_SM = 0x00000004;
/** SMPP 3.4 §5.3.2.32: the TLV that carries a text longer than one SMS. */
const MESSAGE_PAYLOAD = 0x0424;
/** command_length, command_id, command_status, sequence_number. */
const HEADER_LENGTH = 16;
/** A receipt for the final outcome, success or failure (SMPP 3.4 §5.2.17). */
const RECEIPT_ON_FINAL_OUTCOME = 1;

/**
 * One submit_sm, written by smsgw rather than by the `smpp` package's generic encoder, which
 * walks its table of every parameter and TLV and runs their filters for each PDU: 250 ms of a
 * campaign of 50,000 messages, against a few bytes copied here. It is what `Session.send` needs
 * of a PDU; the session numbers it and matches the submit_sm_resp to it as for its own PDUs.
 *
 * The bytes are those the package writes for the same fields (smpp.submit.spec.ts compares them):
 * every optional parameter empty or zero, the text in short_message or, longer than one SMS, in
 * a message_payload TLV with an empty short_message; strings as the package writes them.
 */
export class SubmitSm implements OutgoingPdu {
  readonly command = 'submit_sm';
  sequence_number = 0;

  constructor(
    private readonly source: SourceAddress,
    private readonly destination: string,
    private readonly message: EncodedMessage,
    /** SMPP's relative time (`relativeTime`), or null for the SMSC's default. */
    private readonly validityPeriod: string | null,
  ) {}

  isResponse(): boolean {
    return false;
  }

  toBuffer(): Buffer {
    const { source, destination, message, validityPeriod } = this;
    const payload = message.field === 'message_payload';
    const text = message.bytes;
    const length =
      HEADER_LENGTH +
      // service_type, the two TONs and NPIs, esm_class, protocol_id, priority_flag,
      // schedule_delivery_time, registered_delivery, replace_if_present_flag, data_coding,
      // sm_default_msg_id and sm_length: one octet each.
      14 +
      source.address.length +
      1 +
      destination.length +
      1 +
      (validityPeriod === null ? 0 : validityPeriod.length) +
      1 +
      (payload ? 4 + text.length : text.length);
    const buffer = Buffer.allocUnsafe(length);
    buffer.writeUInt32BE(length, 0);
    buffer.writeUInt32BE(SUBMIT_SM, 4);
    buffer.writeUInt32BE(0, 8);
    buffer.writeUInt32BE(this.sequence_number, 12);
    let offset = HEADER_LENGTH;
    buffer[offset++] = 0;
    buffer[offset++] = source.ton;
    buffer[offset++] = source.npi;
    offset = cString(buffer, offset, source.address);
    buffer[offset++] = TON_INTERNATIONAL;
    buffer[offset++] = NPI_ISDN;
    offset = cString(buffer, offset, destination);
    buffer[offset++] = 0;
    buffer[offset++] = 0;
    buffer[offset++] = 0;
    buffer[offset++] = 0;
    offset = cString(buffer, offset, validityPeriod ?? '');
    buffer[offset++] = RECEIPT_ON_FINAL_OUTCOME;
    buffer[offset++] = 0;
    buffer[offset++] = message.dataCoding;
    buffer[offset++] = 0;
    if (payload) {
      buffer[offset++] = 0;
      buffer.writeUInt16BE(MESSAGE_PAYLOAD, offset);
      buffer.writeUInt16BE(text.length, offset + 2);
      offset += 4;
    } else {
      buffer[offset++] = text.length;
    }
    text.copy(buffer, offset);
    return buffer;
  }
}

/**
 * A C-Octet String: the package writes a string's characters one octet each (Node's 'ascii'
 * encoding, the low byte of each UTF-16 unit), then a NUL.
 */
function cString(buffer: Buffer, offset: number, value: string): number {
  const end = offset + buffer.write(value, offset, 'ascii');
  buffer[end] = 0;
  return end + 1;
}
