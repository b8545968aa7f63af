import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { newEventId, WebhookEvent } from './webhook-events';
import { encodeDelivery, generateSecret } from './webhook-wire';

const AT = new Date('2026-01-02T03:04:05.678Z');

function event(payload: Record<string, unknown> = { id: 7, text: 'Héllo & "bye"', mms: false }) {
  return { id: newEventId(AT), type: 'receive_sms', at: AT, payload } satisfies WebhookEvent;
}

describe('webhook wire formats', () => {
  it('makes ids as RaspiSMS does: the unix time, a dash and 32 hex characters', () => {
    expect(newEventId(AT)).toMatch(/^1767323045-[0-9a-f]{32}$/);
    expect(newEventId(AT)).not.toBe(newEventId(AT));
  });

  it("encodes a raspisms delivery that RaspiSMS's receiver check accepts", () => {
    const secret = generateSecret('raspisms');
    const sent = event();

    const request = encodeDelivery('raspisms', secret, sent, new Date());

    expect(request.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded' });
    const form = new URLSearchParams(request.body);
    // The receiver of RaspiSMS's documentation: hash_hmac('sha256', $random_id, $key) === $sig.
    const expected = createHmac('sha256', secret)
      .update(form.get('webhook_random_id') ?? '')
      .digest('hex');
    expect(form.get('webhook_signature')).toBe(expected);
    expect({
      timestamp: form.get('webhook_timestamp'),
      type: form.get('webhook_type'),
      id: form.get('webhook_random_id'),
      body: JSON.parse(form.get('body') ?? 'null') as unknown,
    }).toEqual({ timestamp: '1767323045', type: 'receive_sms', id: sent.id, body: sent.payload });
  });

  it('encodes a standard delivery that the standardwebhooks verifier accepts, and only untouched', () => {
    const secret = generateSecret('standard');
    const sent = event();

    const request = encodeDelivery('standard', secret, sent, new Date());

    const verifier = new StandardWebhook(secret);
    expect(verifier.verify(request.body, request.headers)).toEqual({
      type: 'receive_sms',
      timestamp: '2026-01-02T03:04:05Z',
      data: sent.payload,
    });
    expect(request.headers['webhook-id']).toBe(sent.id);
    expect(() => verifier.verify(request.body.replace('7', '8'), request.headers)).toThrow();
    expect(() =>
      new StandardWebhook(generateSecret('standard')).verify(request.body, request.headers),
    ).toThrow();
  });

  it('keeps the id and the event time on every attempt; only the standard attempt time moves', () => {
    const secret = generateSecret('standard');
    const sent = event();

    const first = encodeDelivery('standard', secret, sent, new Date('2026-01-02T03:05:00Z'));
    const retry = encodeDelivery('standard', secret, sent, new Date('2026-01-02T04:05:00Z'));

    expect(retry.body).toBe(first.body);
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect([first.headers['webhook-timestamp'], retry.headers['webhook-timestamp']]).toEqual([
      '1767323100',
      '1767326700',
    ]);
    const raspisms = generateSecret('raspisms');
    expect(encodeDelivery('raspisms', raspisms, sent, new Date(0)).body).toBe(
      encodeDelivery('raspisms', raspisms, sent, new Date()).body,
    );
  });
});
