import { PDU } from 'smpp';
import {
  EncodedMessage,
  NPI_ISDN,
  SourceAddress,
  TON_INTERNATIONAL,
  encodedMessage,
  relativeTime,
  sourceAddress,
} from './smpp.codec';
import { SubmitSm } from './smpp.submit';

/** The same submit_sm through the `smpp` package's own encoder, the fields as it takes them. */
function packageBytes(
  source: SourceAddress,
  destination: string,
  message: EncodedMessage,
  validityPeriod: string | null,
  sequence: number,
): Buffer {
  const fields: Record<string, unknown> = {
    sequence_number: sequence,
    source_addr_ton: source.ton,
    source_addr_npi: source.npi,
    source_addr: source.address,
    dest_addr_ton: TON_INTERNATIONAL,
    dest_addr_npi: NPI_ISDN,
    destination_addr: destination,
    registered_delivery: 1,
    data_coding: message.dataCoding,
    [message.field]: message.bytes,
  };
  if (validityPeriod !== null) {
    fields.validity_period = validityPeriod;
  }
  return new PDU('submit_sm', fields).toBuffer();
}

describe('SubmitSm', () => {
  const sources = ['+33612345678', '12345', 'smsgw', 'Café Noël', ''];
  const texts = [
    'Your parcel is on its way.',
    'Hé @€{} ~ [brackets]',
    'Rendez-vous à 14 h ✓',
    'Long GSM: ' + 'a'.repeat(300),
    'Long UCS-2: ' + 'é✓'.repeat(80),
    'x'.repeat(160),
    'x'.repeat(161),
  ];

  it.each(sources)('writes the bytes the package writes, from source %p', (source) => {
    let sequence = 1;
    for (const text of texts) {
      for (const flash of [false, true]) {
        for (const validity of [null, relativeTime(60), relativeTime(99 * 86_400 + 86_399)]) {
          const message = encodedMessage(text, flash);
          const pdu = new SubmitSm(sourceAddress(source), '33612345678', message, validity);
          pdu.sequence_number = sequence;

          const bytes = pdu.toBuffer();

          expect(bytes).toEqual(
            packageBytes(sourceAddress(source), '33612345678', message, validity, sequence),
          );
          expect(new PDU(bytes)).toMatchObject({
            command: 'submit_sm',
            sequence_number: sequence,
            destination_addr: '33612345678',
            data_coding: message.dataCoding,
          });
          sequence += 0x01010101;
        }
      }
    }
  });

  it('is a request, named submit_sm, numbered by the session that sends it', () => {
    const pdu = new SubmitSm(
      sourceAddress('smsgw'),
      '33612345678',
      encodedMessage('Hi', false),
      null,
    );

    expect(pdu.isResponse()).toBe(false);
    expect(pdu.command).toBe('submit_sm');
    expect(pdu.sequence_number).toBe(0);
  });
});
