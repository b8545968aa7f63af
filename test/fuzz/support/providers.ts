import { randomBytes } from 'node:crypto';
import {
  closedPort,
  FakeOvh,
  FakeServer,
  sendJson,
  startFakeOvh,
  startFakeServer,
} from '../../support/adapters.factories';

/*
 * Local stand-ins for every provider a generated phone may talk to, so that nothing leaves
 * 127.0.0.1: a permissive Twilio and Kannel (they accept any credentials, so generated data
 * reaches the code that stores and uses it), the documented fake OVH, and a port where nothing
 * listens.
 */

export interface Providers {
  /** TWILIO_API_URL; also a Kannel smsbox under /cgi-bin/sendsms, and a non-SMPP TCP peer. */
  fakeUrl: string;
  fakePort: number;
  /** OVH_API_URL, with its credentials (the only ones it accepts). */
  ovhUrl: string;
  ovhData: Record<string, string>;
  /** A port of 127.0.0.1 where connections are refused. */
  closedPort: number;
  close(): Promise<void>;
}

export async function startProviders(): Promise<Providers> {
  const fake: FakeServer = await startFakeServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/cgi-bin/sendsms')) {
      // Kannel: a check without a receiver is refused with 400 once the credentials pass.
      response.writeHead(url.searchParams.get('to') ? 202 : 400, { 'Content-Type': 'text/plain' });
      response.end(url.searchParams.get('to') ? '0: Accepted for delivery' : 'Missing receiver');
      return;
    }
    if (url.pathname.endsWith('/IncomingPhoneNumbers.json')) {
      const number = url.searchParams.get('PhoneNumber');
      sendJson(response, 200, { incoming_phone_numbers: number ? [{ phone_number: number }] : [] });
      return;
    }
    if (url.pathname.endsWith('/Messages.json') && request.method === 'POST') {
      sendJson(response, 201, { sid: `SM${randomBytes(16).toString('hex')}`, status: 'queued' });
      return;
    }
    if (/\/Accounts\/[^/]+\.json$/.test(url.pathname)) {
      sendJson(response, 200, { status: 'active' });
      return;
    }
    sendJson(response, 404, { message: 'not found' });
  });
  const ovh = await startFakeOvh();
  return {
    fakeUrl: fake.url,
    fakePort: fake.port,
    ovhUrl: ovh.apiUrl,
    ovhData: FakeOvh.data(),
    closedPort: await closedPort(),
    close: async () => {
      await fake.close();
      await ovh.server.close();
    },
  };
}
