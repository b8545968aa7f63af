import { ListedSms, parseGetAllSms, receivedMessages } from './gammu-sms';

/*
 * What `LC_ALL=C.UTF-8 gammu getallsms` prints for a SIM holding, in order: an unread and a
 * read received message (the second in Unicode over three lines), a sent one, a status
 * report, both parts of a concatenated message, one part of three of another, an 8-bit
 * message and a text that contains a location line of its own.
 */
const GETALLSMS = `Location 1, folder "Inbox", SIM memory, Inbox folder
SMS message
SMSC number          : "+33695000695"
Sent                 : Mon Jan 15 10:23:45 2024 +0100
Coding               : Default GSM alphabet (no compression)
Remote number        : "+33612345678"
Status               : UnRead

Hello from the modem

Location 2, folder "Inbox", SIM memory, Inbox folder
SMS message
SMSC number          : "+33695000695"
Sent                 : Fri Jul  5 23:59:59 2024 +0200
Coding               : Unicode (no compression)
Remote number        : "+33687654321"
Status               : Read

Ça va ?

À demain 🙂

Location 3, folder "Outbox", SIM memory
SMS message
Reference number     : 12
Coding               : Default GSM alphabet (no compression)
Remote number        : "+33611111111"
Status               : Sent

Sent from here

Location 4, folder "Inbox", SIM memory, Inbox folder
SMS status report
Status               : UnRead
Remote number        : "+33611111111"
Reference number     : 12
Sent                 : Mon Jan 15 10:24:00 2024 +0100
SMSC number          : "+33695000695"
SMSC response        : Mon Jan 15 10:24:02 2024 +0100
Delivery status      : Delivered
Details              : SM received by the SME

Location 5, folder "Inbox", SIM memory, Inbox folder
SMS message
SMSC number          : "+33695000695"
Sent                 : Tue Feb 20 08:00:01 2024 +0100
Coding               : Default GSM alphabet (no compression)
Remote number        : "+33622222222"
Status               : UnRead
User Data Header     : Concatenated (linked) message, ID (8 bit) 45, part 1 of 2

This is the first part and 

Location 6, folder "Inbox", SIM memory, Inbox folder
SMS message
SMSC number          : "+33695000695"
Sent                 : Tue Feb 20 08:00:03 2024 +0100
Coding               : Default GSM alphabet (no compression)
Remote number        : "+33622222222"
Status               : UnRead
User Data Header     : Concatenated (linked) message, ID (8 bit) 45, part 2 of 2

this is the second.

Location 7, folder "Inbox", SIM memory, Inbox folder
SMS message
SMSC number          : "+33695000695"
Sent                 : Tue Feb 20 09:00:00 2024 +0100
Coding               : Default GSM alphabet (no compression)
Remote number        : "+33633333333"
Status               : UnRead
User Data Header     : Concatenated (linked) message, ID (16 bit) 1234, part 1 of 3

Only the first of three

Location 8, folder "Inbox", SIM memory, Inbox folder
SMS message
SMSC number          : "+33695000695"
Sent                 : Tue Feb 20 10:00:00 2024 +0100
Coding               : 8-bit
Remote number        : "+33644444444"
Status               : UnRead

8 bit SMS, cannot be displayed here

Location 9, folder "Inbox", phone memory, Inbox folder
SMS message
SMSC number          : "+33695000695"
Sent                 : Wed Feb 21 12:00:00 2024 +0100
Coding               : Default GSM alphabet (no compression)
Remote number        : "0612345678"
Status               : UnRead

Meet me at
Location 10, folder "Inbox"
SMS message



9 SMS parts in 8 SMS sequences
`;

describe('parseGetAllSms', () => {
  it('reads each SMS message with its location, status, number, UTC date and exact text', () => {
    const listed = parseGetAllSms(GETALLSMS);

    expect(listed.slice(0, 2)).toEqual<ListedSms[]>([
      {
        location: 1,
        folder: 'Inbox',
        status: 'UnRead',
        remoteNumber: '+33612345678',
        sent: '2024-01-15 09:23:45',
        coding: 'Default GSM alphabet (no compression)',
        text: 'Hello from the modem',
        part: null,
      },
      {
        location: 2,
        folder: 'Inbox',
        status: 'Read',
        remoteNumber: '+33687654321',
        sent: '2024-07-05 21:59:59',
        coding: 'Unicode (no compression)',
        text: 'Ça va ?\n\nÀ demain 🙂',
        part: null,
      },
    ]);
  });

  it('leaves status reports out and keeps sent messages, 8-bit ones and parts as listed', () => {
    expect(parseGetAllSms(GETALLSMS).map(({ location, status }) => [location, status])).toEqual([
      [1, 'UnRead'],
      [2, 'Read'],
      [3, 'Sent'],
      [5, 'UnRead'],
      [6, 'UnRead'],
      [7, 'UnRead'],
      [8, 'UnRead'],
      [9, 'UnRead'],
    ]);
  });

  it('reads the part a message is of a concatenated one, with an 8 or 16 bit id', () => {
    const parts = parseGetAllSms(GETALLSMS).map(({ part }) => part);

    expect(parts.slice(3, 6)).toEqual([
      { id: '45', number: 1, of: 2 },
      { id: '45', number: 2, of: 2 },
      { id: '1234', number: 1, of: 3 },
    ]);
  });

  it('keeps a location line inside a text as text', () => {
    const last = parseGetAllSms(GETALLSMS).at(-1);

    expect(last?.text).toBe('Meet me at\nLocation 10, folder "Inbox"\nSMS message');
  });

  it('keeps an empty text empty', () => {
    const empty = GETALLSMS.replace('Hello from the modem', '');

    expect(parseGetAllSms(empty)[0].text).toBe('');
  });

  it('reads a date that is not a gammu date as unknown', () => {
    const odd = GETALLSMS.replace('Mon Jan 15 10:23:45 2024 +0100', '15/01/2024 10:23');

    expect(parseGetAllSms(odd)[0].sent).toBeNull();
  });

  it('finds nothing in an empty memory', () => {
    expect(parseGetAllSms('\n\n0 SMS parts in 0 SMS sequences\n')).toEqual([]);
    expect(parseGetAllSms('')).toEqual([]);
  });
});

describe('receivedMessages', () => {
  it('gives the received text messages, a complete concatenated one joined in part order', () => {
    expect(receivedMessages(parseGetAllSms(GETALLSMS))).toEqual([
      {
        locations: [1],
        sms: { origin: '+33612345678', text: 'Hello from the modem', at: '2024-01-15 09:23:45' },
      },
      {
        locations: [2],
        sms: { origin: '+33687654321', text: 'Ça va ?\n\nÀ demain 🙂', at: '2024-07-05 21:59:59' },
      },
      {
        locations: [9],
        sms: {
          origin: '0612345678',
          text: 'Meet me at\nLocation 10, folder "Inbox"\nSMS message',
          at: '2024-02-21 11:00:00',
        },
      },
      {
        locations: [5, 6],
        sms: {
          origin: '+33622222222',
          text: 'This is the first part and this is the second.',
          at: '2024-02-20 07:00:01',
        },
      },
    ]);
  });

  it('joins the parts of a concatenated message whatever order the memory holds them in', () => {
    const listed = parseGetAllSms(GETALLSMS);
    const reversed = [...listed].reverse();

    expect(receivedMessages(reversed).find(({ locations }) => locations.length === 2)).toEqual({
      locations: [5, 6],
      sms: expect.objectContaining({ text: 'This is the first part and this is the second.' }),
    });
  });
});
