import { Logger } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import {
  FakeServer,
  adapterConfig,
  closedPort,
  sendJson,
  startFakeServer,
  startSilentServer,
} from '../../../test/support/adapters.factories';
import { TwilioAdapter } from './twilio.adapter';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'the-auth-token';
const NUMBER = '+33612345678';
const DATA = { account_sid: SID, auth_token: TOKEN, number: NUMBER };

/**
 * Twilio's REST API as documented: HTTP Basic with the account SID and auth token, the
 * IncomingPhoneNumbers list filtered by PhoneNumber, and the Account resource.
 */
class FakeTwilio {
  accountStatus = 'active';
  numbers = [NUMBER, '+33699999999'];
  failWith: number | null = null;

  readonly handle = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://twilio');
    if (this.failWith) {
      sendJson(response, this.failWith, { code: 20500, message: 'Internal Server Error' });
      return;
    }
    if (request.method !== 'GET') {
      sendJson(response, 405, { message: 'Method not allowed' });
      return;
    }
    const expected = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
    if (request.headers.authorization !== expected) {
      sendJson(response, 401, { code: 20003, message: 'Authenticate', status: 401 });
      return;
    }
    if (url.pathname === `/2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json`) {
      const wanted = url.searchParams.get('PhoneNumber');
      const numbers = this.numbers.filter((number) => number === wanted);
      sendJson(response, 200, {
        incoming_phone_numbers: numbers.map((number) => ({ phone_number: number, sid: 'PN1' })),
        page: 0,
      });
      return;
    }
    if (url.pathname === `/2010-04-01/Accounts/${SID}.json`) {
      sendJson(response, 200, { sid: SID, status: this.accountStatus });
      return;
    }
    sendJson(response, 404, { code: 20404, message: 'The requested resource was not found' });
  };
}

describe('TwilioAdapter', () => {
  let fake: FakeTwilio;
  let server: FakeServer;
  let adapter: TwilioAdapter;
  let warnings: jest.SpyInstance;

  beforeEach(async () => {
    fake = new FakeTwilio();
    server = await startFakeServer(fake.handle);
    adapter = new TwilioAdapter(adapterConfig({ TWILIO_API_URL: server.url }));
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    warnings.mockRestore();
    await server.close();
  });

  describe('test', () => {
    it('accepts credentials whose account owns the number', async () => {
      expect(await adapter.test(DATA)).toBeNull();
    });

    it('reports refused credentials, naming the fields to check', async () => {
      expect(await adapter.test({ ...DATA, auth_token: 'wrong' })).toBe(
        'Twilio refused the credentials (HTTP 401): check account_sid and auth_token.',
      );
    });

    it('reports an unknown account_sid as refused credentials, as Twilio does', async () => {
      expect(await adapter.test({ ...DATA, account_sid: 'AC404' })).toBe(
        'Twilio refused the credentials (HTTP 401): check account_sid and auth_token.',
      );
    });

    it('reports a number the account does not own', async () => {
      expect(await adapter.test({ ...DATA, number: '+33700000000' })).toBe(
        'The number +33700000000 is not a phone number of this Twilio account: check number.',
      );
    });

    it('reports a failing Twilio', async () => {
      fake.failWith = 503;

      expect(await adapter.test(DATA)).toBe(
        'Twilio answered HTTP 503: it is failing on its side, try again later.',
      );
    });

    it('reports a Twilio it cannot connect to, without throwing', async () => {
      const port = await closedPort();
      const offline = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: `http://127.0.0.1:${port}` }),
      );

      expect(await offline.test(DATA)).toBe(
        `Could not reach Twilio at http://127.0.0.1:${port} (connection refused).`,
      );
    });

    it('gives up on a Twilio that never answers within the provider timeout', async () => {
      const silent = await startSilentServer();
      const hanging = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: silent.url, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.test(DATA)).toBe(
          `Could not reach Twilio at ${silent.url} within 200 ms.`,
        );
      } finally {
        await silent.close();
      }
    });

    it('names a missing required field before calling Twilio', async () => {
      fake.failWith = 500;

      expect(await adapter.test({ account_sid: SID, number: NUMBER })).toBe(
        'auth_token is required.',
      );
    });
  });

  describe('checkStatus', () => {
    it('reports an active account as available', async () => {
      expect(await adapter.checkStatus(DATA)).toBe('available');
    });

    it.each(['suspended', 'closed'])('reports a %s account as unavailable', async (status) => {
      fake.accountStatus = status;

      expect(await adapter.checkStatus(DATA)).toBe('unavailable');
    });

    it('reports refused credentials as unavailable, logging no secret', async () => {
      expect(await adapter.checkStatus({ ...DATA, auth_token: 'wrong' })).toBe('unavailable');
      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toMatch(/wrong|the-auth-token/);
    });

    it('reports a failing Twilio as unavailable', async () => {
      fake.failWith = 500;

      expect(await adapter.checkStatus(DATA)).toBe('unavailable');
    });

    it('reports an unreachable Twilio as unavailable', async () => {
      const port = await closedPort();
      const offline = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: `http://127.0.0.1:${port}` }),
      );

      expect(await offline.checkStatus(DATA)).toBe('unavailable');
    });

    it('reports a Twilio that never answers as unavailable', async () => {
      const silent = await startSilentServer();
      const hanging = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: silent.url, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.checkStatus(DATA)).toBe('unavailable');
      } finally {
        await silent.close();
      }
    });
  });
});
