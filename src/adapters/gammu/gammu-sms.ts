import { DateTime } from 'luxon';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import { API_DATETIME_FORMAT } from '../../common/time/datetime';
import { IncomingSms } from '../adapter';

/*
 * Reading `gammu getallsms`. Gammu prints each message as its location line
 * (`Location 3, folder "Inbox", SIM memory, Inbox folder`), `SMS message`, header lines
 * (`Sent                 : Mon Jan 15 10:23:45 2024 +0100`, the name padded to 20 columns),
 * a blank line, the text, and a blank line; then `N SMS parts in M SMS sequences`. The text
 * is free, so a message starts only where a location line follows a blank line and precedes
 * `SMS message` or `SMS status report`: a text would have to contain that exact sequence to
 * be misread. Gammu prints texts in the locale's charset, hence the UTF-8 locale it is run in.
 */

/** One SMS as `gammu getallsms` lists it. */
export interface ListedSms {
  /** Its location in gammu's flat numbering (folder 0), as `deletesms 0 <location>` takes it. */
  location: number;
  folder: string;
  /** `UnRead` or `Read` for received messages, `Sent` or `UnSent` for outgoing ones. */
  status: string;
  remoteNumber: string;
  /** When the network says it was sent: UTC `YYYY-MM-DD HH:MM:SS`, null when unreadable. */
  sent: string | null;
  /** `Default GSM alphabet (no compression)`, `Unicode (no compression)`, `8-bit`… */
  coding: string;
  text: string;
  /** Its place in a concatenated message, when it is one part of one. */
  part: { id: string; number: number; of: number } | null;
}

/** A received message: one listed SMS, or every part of a concatenated one, in order. */
export interface ReceivedSms {
  locations: number[];
  sms: IncomingSms;
}

const LOCATION = /^Location (\d+), folder "(.*)"/;
const HEADER = /^(\S.*?)\s* : (.*)$/;
const SUMMARY = /\n\n\d+ SMS parts in \d+ SMS sequences\n?$/;
const CONCATENATED =
  /Concatenated \(linked\) message, ID \((?:8|16) bit\) (\d+), part (\d+) of (\d+)/;
const RECEIVED_STATUSES = ['UnRead', 'Read'];

/** The SMS messages `gammu getallsms` printed, status reports left out. */
export function parseGetAllSms(output: string): ListedSms[] {
  const lines = output.replace(/\r\n/g, '\n').replace(SUMMARY, '').split('\n');
  if (lines.at(-1) === '') {
    lines.pop();
  }
  const starts: number[] = [];
  lines.forEach((line, index) => {
    if (
      LOCATION.test(line) &&
      (starts.length === 0 || lines[index - 1] === '') &&
      /^SMS (message|status report)$/.test(lines[index + 1] ?? '')
    ) {
      starts.push(index);
    }
  });
  return starts.flatMap((start, index) => {
    const listed = parseRecord(lines.slice(start, starts[index + 1] ?? lines.length));
    return listed ? [listed] : [];
  });
}

function parseRecord(record: string[]): ListedSms | null {
  const [locationLine, kind] = record;
  const location = LOCATION.exec(locationLine);
  if (!location || kind !== 'SMS message') {
    return null;
  }
  const blank = record.indexOf('', 2);
  const headerEnd = blank < 0 ? record.length : blank;
  const headers = new Map<string, string>();
  for (const line of record.slice(2, headerEnd)) {
    const header = HEADER.exec(line);
    if (header) {
      headers.set(header[1], header[2]);
    }
  }
  // The text, then the blank line gammu closes every message with.
  const text = blank < 0 ? '' : record.slice(blank + 1, -1).join('\n');
  const part = CONCATENATED.exec(headers.get('User Data Header') ?? '');
  return {
    location: Number(location[1]),
    folder: location[2],
    status: headers.get('Status') ?? '',
    remoteNumber: /^"(.*)"/.exec(headers.get('Remote number') ?? '')?.[1] ?? '',
    sent: gammuDate(headers.get('Sent')),
    coding: headers.get('Coding') ?? '',
    text,
    part: part ? { id: part[1], number: Number(part[2]), of: Number(part[3]) } : null,
  };
}

/** Gammu's date, `%c` of the C locale and the zone: `Mon Jan  5 10:23:45 2024 +0100`. */
function gammuDate(value: string | undefined): string | null {
  if (!value) {
    return null;
  }
  const date = DateTime.fromFormat(
    value.trim().replace(/\s+/g, ' '),
    'EEE MMM d HH:mm:ss yyyy ZZZ',
    {
      setZone: true,
      locale: 'en-US',
    },
  );
  return date.isValid ? date.toUTC().toFormat(API_DATETIME_FORMAT) : null;
}

/**
 * The received text messages among `listed`. The parts of a concatenated message make one
 * message once all have arrived; until then they are left where they are. 8-bit messages
 * (binary: ringtones, WAP pushes, MMS notifications) are no text and are left too.
 */
export function receivedMessages(listed: ListedSms[]): ReceivedSms[] {
  const received = listed.filter(
    (sms) => RECEIVED_STATUSES.includes(sms.status) && sms.coding !== '8-bit',
  );
  const messages: ReceivedSms[] = [];
  const concatenated = new Map<string, Array<{ sms: ListedSms; number: number; of: number }>>();
  for (const sms of received) {
    if (!sms.part) {
      messages.push({ locations: [sms.location], sms: incoming(sms, sms.text) });
      continue;
    }
    const { id, number, of } = sms.part;
    const key = `${sms.remoteNumber}\u0000${id}\u0000${of}`;
    concatenated.set(key, [...(concatenated.get(key) ?? []), { sms, number, of }]);
  }
  for (const parts of concatenated.values()) {
    const ordered = [...parts].sort((a, b) => a.number - b.number);
    const complete =
      ordered.length === ordered[0].of &&
      ordered.every(({ number }, index) => number === index + 1);
    if (complete) {
      messages.push({
        locations: ordered.map(({ sms }) => sms.location),
        sms: incoming(ordered[0].sms, ordered.map(({ sms }) => sms.text).join('')),
      });
    }
  }
  return messages;
}

function incoming(first: ListedSms, text: string): IncomingSms {
  return {
    origin: normalizePhoneNumber(first.remoteNumber) ?? first.remoteNumber,
    text,
    at: first.sent,
  };
}
