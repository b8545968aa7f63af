import { PDU, encodings, errors } from 'smpp';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import { IncomingSms, ReportedStatus, SendResult, StatusReport } from '../adapter';

/* SMPP 3.4 §5.2.5 (type of number) and §5.2.6 (numbering plan). */
export const TON_INTERNATIONAL = 1;
const TON_ALPHANUMERIC = 5;
const NPI_UNKNOWN = 0;
export const NPI_ISDN = 1;

/*
 * SMPP 3.4 §5.2.19. Flash messages are GSM message class 0: 0xF0 is SMPP's own "GSM message
 * class control" value for the default alphabet; SMPP has none for UCS-2, where SMSCs take the
 * GSM 03.38 coding group value 0x18 (as Kannel sends).
 */
const DATA_CODING_DEFAULT = 0x00;
const DATA_CODING_UCS2 = 0x08;
const DATA_CODING_DEFAULT_FLASH = 0xf0;
const DATA_CODING_UCS2_FLASH = 0x18;

/* One SMS holds 160 septets, which SMPP carries one per octet, or 140 octets of UCS-2. */
const MAX_SHORT_MESSAGE_GSM = 160;
const MAX_SHORT_MESSAGE_UCS2 = 140;

/* esm_class bits 2–5 (SMPP 3.4 §5.2.12): the kind of message a deliver_sm carries. */
const ESM_MESSAGE_TYPE = 0x3c;
const ESM_DEFAULT = 0x00;
const ESM_DELIVERY_RECEIPT = 0x04;
const ESM_INTERMEDIATE_NOTIFICATION = 0x20;

/** The bind statuses that mean wrong credentials, which no retry fixes. */
export const CREDENTIAL_STATUSES: ReadonlySet<number> = new Set([
  errors.ESME_RINVPASWD,
  errors.ESME_RINVSYSID,
  errors.ESME_RINVSYSTYP,
]);

/** The SMPP name of a command_status, e.g. ESME_RINVPASWD. */
export function statusName(status: number): string {
  const name = Object.keys(errors).find((candidate) => errors[candidate] === status);
  return name ?? `command_status 0x${status.toString(16).padStart(8, '0')}`;
}

/** A submit_sm's source: its TON, NPI and address. */
export interface SourceAddress {
  ton: number;
  npi: number;
  address: string;
}

/** The phone's source_addr: a name (alphanumeric TON) or an international number. */
export function sourceAddress(source: string): SourceAddress {
  const number = /^\+?\d+$/.test(source.trim());
  return number
    ? { ton: TON_INTERNATIONAL, npi: NPI_ISDN, address: source.trim().replace(/^\+/, '') }
    : { ton: TON_ALPHANUMERIC, npi: NPI_UNKNOWN, address: source };
}

/** An E.164 destination's digits, as SMPP takes it with the international TON; null: not one. */
export function destinationDigits(destination: string): string | null {
  return /^\+\d{1,20}$/.test(destination) ? destination.slice(1) : null;
}

/**
 * A validity period in SMPP's relative time format (SMPP 3.4, 7.1.1): `YYMMDDhhmmss000R`, here
 * days, hours, minutes and seconds; at least a second (all zeros would be the SMSC's default),
 * at most 99 days, what the two digits of the days hold.
 */
export function relativeTime(seconds: number): string {
  const total = Math.min(99 * 86_400 + 86_399, Math.max(1, Math.floor(seconds)));
  const two = (value: number) => String(value).padStart(2, '0');
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return `0000${two(days)}${two(hours)}${two(minutes)}${two(total % 60)}000R`;
}

/**
 * The text as submit_sm fields: GSM 03.38 when every character is in it, else UCS-2. A text
 * longer than one SMS goes whole in `message_payload` rather than in UDH-concatenated parts,
 * so the SMSC answers with one message_id and sends one receipt for the message smsgw records
 * as one entry, and takes or refuses it as a whole.
 */
export function encodedMessage(text: string, flash: boolean): EncodedMessage {
  if (lastEncoded.text !== text || lastEncoded.flash !== flash) {
    lastEncoded = { text, flash, message: encode(text, flash) };
  }
  return lastEncoded.message;
}

/** A text as submit_sm carries it. */
export interface EncodedMessage {
  dataCoding: number;
  field: 'short_message' | 'message_payload';
  bytes: Buffer;
}

/**
 * The last text encoded: a campaign sends one text to every recipient, and encoding it (the
 * GSM 03.38 check and table lookups) cost more than the rest of its submit_sm. Its buffer is
 * only read when each PDU is written.
 */
let lastEncoded: { text: string; flash: boolean; message: EncodedMessage } = {
  text: '',
  flash: false,
  message: encode('', false),
};

function encode(text: string, flash: boolean): EncodedMessage {
  const gsm = encodings.ASCII.match(text);
  const bytes = gsm ? encodings.ASCII.encode(text) : encodings.UCS2.encode(text);
  const dataCoding = gsm
    ? flash
      ? DATA_CODING_DEFAULT_FLASH
      : DATA_CODING_DEFAULT
    : flash
      ? DATA_CODING_UCS2_FLASH
      : DATA_CODING_UCS2;
  const single = bytes.length <= (gsm ? MAX_SHORT_MESSAGE_GSM : MAX_SHORT_MESSAGE_UCS2);
  return { dataCoding, field: single ? 'short_message' : 'message_payload', bytes };
}

const TRANSIENT_REFUSALS: Readonly<Record<string, string>> = {
  ESME_RTHROTTLED: 'The SMSC asked smsgw to slow down (ESME_RTHROTTLED): try again later.',
  ESME_RMSGQFUL: 'The SMSC has too many messages queued (ESME_RMSGQFUL): try again later.',
  ESME_RSYSERR: 'The SMSC failed on its side (ESME_RSYSERR): try again later.',
};

const DESTINATION = 'check the destination number.';
const SOURCE = 'check source_addr.';
const ENCODING =
  'the SMSC does not take the message as smsgw encodes it (long texts in message_payload, data_coding 0 or 8): ask its operator what it supports.';

const PERMANENT_HINTS: Readonly<Record<string, string>> = {
  ESME_RINVDSTADR: DESTINATION,
  ESME_RINVDSTTON: DESTINATION,
  ESME_RINVDSTNPI: DESTINATION,
  ESME_RINVSRCADR: SOURCE,
  ESME_RINVSRCTON: SOURCE,
  ESME_RINVSRCNPI: SOURCE,
  ESME_RINVMSGLEN: ENCODING,
  ESME_RINVDCS: ENCODING,
  ESME_RINVESMCLASS: ENCODING,
  ESME_RINVTLVSTREAM: ENCODING,
  ESME_RTLVNOTALLWD: ENCODING,
  ESME_RINVTLVLEN: ENCODING,
  ESME_RINVTLVVAL: ENCODING,
  ESME_RMISSINGTLV: ENCODING,
};

/**
 * The command_status values of a submit_sm_resp that refuse the phone rather than the
 * recipient (SMPP 3.4 §5.1.3, 5.0 §4.7.6; docs/adapters.md#refusals): its session or
 * credentials (RINVBNDSTS, RALYBND, RBINDFAIL, RINVPASWD, RINVSYSID, RINVSYSTYP), its
 * source_addr (RINVSRCADR, RINVSRCTON, RINVSRCNPI, RINVSRCADDRSUBUNIT), a service its account
 * may not use (RINVSERTYP, RSERTYPUNAUTH, RPROHIBITED, RSERTYPUNAVAIL, RSERTYPDENIED), and the
 * encodings smsgw uses that this SMSC does not take (ENCODING above): another phone's provider
 * may take them. The others (RINVDSTADR, RINVDSTTON, RINVDSTNPI, RX_R_APPN, RDELIVERYFAILURE,
 * RSUBMITFAIL, RUNKNOWNERR, ...) are the recipient's.
 */
const PHONE_STATUSES: ReadonlySet<string> = new Set([
  'ESME_RINVBNDSTS',
  'ESME_RALYBND',
  'ESME_RBINDFAIL',
  'ESME_RINVPASWD',
  'ESME_RINVSYSID',
  'ESME_RINVSYSTYP',
  'ESME_RINVSRCADR',
  'ESME_RINVSRCTON',
  'ESME_RINVSRCNPI',
  'ESME_RINVSRCADDRSUBUNIT',
  'ESME_RINVSERTYP',
  'ESME_RSERTYPUNAUTH',
  'ESME_RPROHIBITED',
  'ESME_RSERTYPUNAVAIL',
  'ESME_RSERTYPDENIED',
  ...Object.keys(PERMANENT_HINTS).filter((name) => PERMANENT_HINTS[name] === ENCODING),
]);

/**
 * What a submit_sm_resp means for the message. An error status means the SMSC did not take
 * it; only the statuses of a busy or failing SMSC are worth another try.
 */
export function submitResult(response: PDU): SendResult {
  if (response.command_status === errors.ESME_ROK) {
    return { outcome: 'sent', uid: cString(response.message_id) };
  }
  const name = statusName(response.command_status);
  const transient = TRANSIENT_REFUSALS[name];
  if (transient) {
    return { outcome: 'transient', reason: transient };
  }
  const hint = PERMANENT_HINTS[name] ?? 'check the destination number and the adapter data.';
  return {
    outcome: 'permanent',
    reason: `The SMSC refused the message with ${name}: ${hint}`,
    cause: PHONE_STATUSES.has(name) ? 'phone' : 'recipient',
  };
}

export type Delivery =
  | { kind: 'receipt'; report: StatusReport | null }
  | { kind: 'message'; sms: IncomingSms }
  | { kind: 'other' };

/** A deliver_sm as smsgw reports it: a delivery receipt, an inbound message, or neither. */
export function readDeliverSm(pdu: PDU): Delivery {
  const type = Number(pdu.esm_class ?? 0) & ESM_MESSAGE_TYPE;
  const text = messageText(pdu.message_payload ?? pdu.short_message);
  if (type === ESM_DELIVERY_RECEIPT || type === ESM_INTERMEDIATE_NOTIFICATION) {
    return { kind: 'receipt', report: readReceipt(pdu, text) };
  }
  if (type !== ESM_DEFAULT) {
    return { kind: 'other' };
  }
  return { kind: 'message', sms: { origin: origin(pdu), text, at: null } };
}

/** A C-Octet String field as the package reads it, '' when absent. */
function cString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The package decodes texts by data_coding into `{message}`; codings it lacks stay bytes. */
function messageText(value: unknown): string {
  const message = value && typeof value === 'object' && 'message' in value ? value.message : value;
  if (typeof message === 'string') {
    return message;
  }
  return Buffer.isBuffer(message) ? message.toString('latin1') : '';
}

/** The source as E.164 when it parses (an international TON lacks the '+'), else as given. */
function origin(pdu: PDU): string {
  const address = cString(pdu.source_addr);
  const international = pdu.source_addr_ton === TON_INTERNATIONAL && !address.startsWith('+');
  return normalizePhoneNumber(international ? `+${address}` : address) ?? address;
}

/* The `stat:` values of the receipt text (SMPP 3.4 appendix B). */
const RECEIPT_STATES: Readonly<Record<string, ReportedStatus>> = {
  DELIVRD: 'delivered',
  UNDELIV: 'failed',
  EXPIRED: 'failed',
  REJECTD: 'failed',
  DELETED: 'failed',
};

/* The message_state TLV (SMPP 3.4 §5.2.28). */
const MESSAGE_STATES: Readonly<Record<number, ReportedStatus>> = {
  2: 'delivered',
  3: 'failed',
  4: 'failed',
  5: 'failed',
  8: 'failed',
};

/**
 * The receipt's message id and status. The TLVs, when the SMSC sends them, are exact; the
 * text `id:… sub:… dlvrd:… submit date:… done date:… stat:… err:…` is what every SMSC sends.
 * Null without an id: such a receipt cannot be matched to a message.
 */
function readReceipt(pdu: PDU, text: string): StatusReport | null {
  const field = (name: string) => new RegExp(`(?:^|\\s)${name}:(\\S+)`, 'i').exec(text)?.[1];
  const uid =
    typeof pdu.receipted_message_id === 'string' && pdu.receipted_message_id
      ? pdu.receipted_message_id
      : field('id');
  if (!uid) {
    return null;
  }
  const state =
    typeof pdu.message_state === 'number'
      ? MESSAGE_STATES[pdu.message_state]
      : RECEIPT_STATES[(field('stat') ?? '').toUpperCase()];
  return { uid, status: state ?? 'unknown' };
}
