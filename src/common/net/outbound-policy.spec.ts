import { LookupAddress } from 'node:dns';
import { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { FakeServer, startFakeServer } from '../../../test/support/adapters.factories';
import { parseOutboundAllow } from './outbound-allow';
import { OutboundPolicy, OutboundRefusal, Resolver, outboundRefusalOf } from './outbound-policy';

/** A policy from the two settings as an operator writes them. */
function policy(
  settings: { blockPrivate?: boolean; allow?: string } = {},
  resolver?: Resolver,
): OutboundPolicy {
  const { allow, invalid } = parseOutboundAllow(settings.allow ?? '');
  expect(invalid).toEqual([]);
  return new OutboundPolicy({ blockPrivate: settings.blockPrivate ?? false, allow }, resolver);
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

/** A resolver answering from `names`, one answer after the other for names given several. */
function fakeResolver(names: Record<string, LookupAddress[][]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = (host: string) => {
    calls.push(host);
    const answers = names[host];
    if (!answers) {
      return Promise.reject(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }),
      );
    }
    return Promise.resolve(answers.length > 1 ? (answers.shift() as LookupAddress[]) : answers[0]);
  };
  return Object.assign(resolver, { calls });
}

const rangeOf = (refusal: OutboundRefusal | null) => refusal?.range ?? null;

describe('OutboundPolicy', () => {
  describe('by default', () => {
    const open = policy();

    it.each([
      ['169.254.169.254', 'link-local'],
      ['169.254.0.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['febf:ffff::1', 'link-local'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['::', 'unspecified'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::ffff:0.0.0.0', 'unspecified'],
    ])('refuses %s (%s)', (address, range) => {
      expect(rangeOf(open.refusal(address))).toBe(range);
    });

    it.each([
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      'fd00::1',
      '100.64.0.1',
      '8.8.8.8',
      '2001:4860:4860::8888',
      '169.253.255.255',
      '169.255.0.0',
      'fec0::1',
    ])('allows %s', (address) => {
      expect(open.refusal(address)).toBeNull();
    });

    it('says what it refused and how an operator allows it, for an address and for a name', () => {
      expect(open.refusal('169.254.169.254')?.message).toBe(
        "the address 169.254.169.254 is refused by the server's outbound policy (link-local); an operator can allow it with OUTBOUND_ALLOW.",
      );
      expect(open.refusal('169.254.169.254', 'metadata.example.org')?.message).toBe(
        "the host metadata.example.org resolves to an address refused by the server's outbound policy (link-local); an operator can allow it with OUTBOUND_ALLOW.",
      );
    });
  });

  describe('with OUTBOUND_BLOCK_PRIVATE', () => {
    const closed = policy({ blockPrivate: true });

    it.each([
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['10.0.0.1', 'private'],
      ['10.255.255.255', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.1', 'private'],
      ['::ffff:192.168.0.1', 'private'],
      ['fc00::1', 'unique-local'],
      ['fdff:ffff::1', 'unique-local'],
      ['100.64.0.1', 'CGNAT'],
      ['100.127.255.255', 'CGNAT'],
      ['169.254.169.254', 'link-local'],
      ['0.0.0.0', 'unspecified'],
    ])('refuses %s (%s)', (address, range) => {
      expect(rangeOf(closed.refusal(address))).toBe(range);
    });

    it.each([
      '8.8.8.8',
      '172.15.255.255',
      '172.32.0.0',
      '192.169.0.1',
      '100.63.255.255',
      '100.128.0.0',
      '11.0.0.1',
      '2001:db8::1',
      'fe00::1',
    ])('allows the public address %s', (address) => {
      expect(closed.refusal(address)).toBeNull();
    });
  });

  describe('OUTBOUND_ALLOW', () => {
    it('allows a listed host name whatever it resolves to, and only that name', async () => {
      const resolver = fakeResolver({
        localhost: [[v4('127.0.0.1'), v6('::1')]],
        'other.example.org': [[v4('127.0.0.1')]],
      });
      const allowing = policy({ blockPrivate: true, allow: 'LocalHost.' }, resolver);

      expect(await allowing.resolve('localhost')).toEqual([v4('127.0.0.1'), v6('::1')]);
      expect(await allowing.check('localhost.')).toBeNull();
      expect(rangeOf(await allowing.check('other.example.org'))).toBe('loopback');
      expect(rangeOf(await allowing.check('127.0.0.1'))).toBe('loopback');
    });

    it('allows a listed address, in any notation it is reached by', async () => {
      const allowing = policy({ blockPrivate: true, allow: '127.0.0.1, 169.254.169.254' });

      expect(await allowing.check('127.0.0.1')).toBeNull();
      expect(await allowing.check('0x7f.1')).toBeNull();
      expect(await allowing.check('[::ffff:127.0.0.1]')).toBeNull();
      expect(await allowing.check('169.254.169.254')).toBeNull();
      expect(rangeOf(await allowing.check('127.0.0.2'))).toBe('loopback');
      expect(rangeOf(await allowing.check('169.254.169.253'))).toBe('link-local');
    });

    it('allows the addresses of listed CIDR ranges, IPv4 and IPv6', () => {
      const allowing = policy({ blockPrivate: true, allow: '10.0.0.0/8,fd00::/8,[fe80::1]' });

      expect(allowing.refusal('10.20.30.40')).toBeNull();
      expect(allowing.refusal('fd12::1')).toBeNull();
      expect(allowing.refusal('fe80::1')).toBeNull();
      expect(rangeOf(allowing.refusal('fe80::2'))).toBe('link-local');
      expect(rangeOf(allowing.refusal('fc00::1'))).toBe('unique-local');
      expect(rangeOf(allowing.refusal('192.168.1.1'))).toBe('private');
    });
  });

  describe('resolve', () => {
    it.each([
      ['0x7f.1', '127.0.0.1', 'loopback'],
      ['2130706433', '127.0.0.1', 'loopback'],
      ['017700000001', '127.0.0.1', 'loopback'],
      ['0251.0376.0251.0376', '169.254.169.254', 'link-local'],
      ['[::ffff:169.254.169.254]', '::ffff:169.254.169.254', 'link-local'],
      ['[::]', '::', 'unspecified'],
    ])(
      'reads %p as the address %s, refused (%s), without asking DNS',
      async (host, address, range) => {
        const resolver = fakeResolver({});

        await expect(policy({ blockPrivate: true }, resolver).resolve(host)).rejects.toMatchObject({
          address,
          range,
          message: expect.stringMatching(/^the address /),
        });
        expect(resolver.calls).toEqual([]);
      },
    );

    it('refuses a name when any of its addresses is refused', async () => {
      const resolver = fakeResolver({
        'mixed.example.org': [[v4('93.184.216.34'), v6('2606:2800::1'), v4('10.0.0.7')]],
      });

      await expect(
        policy({ blockPrivate: true }, resolver).resolve('mixed.example.org'),
      ).rejects.toMatchObject({ host: 'mixed.example.org', address: '10.0.0.7', range: 'private' });
    });

    it('gives every address of a name whose addresses are all allowed', async () => {
      const resolver = fakeResolver({
        'smsc.example.org': [[v4('93.184.216.34'), v6('2606:2800::1')]],
      });

      expect(await policy({ blockPrivate: true }, resolver).resolve('smsc.example.org')).toEqual([
        v4('93.184.216.34'),
        v6('2606:2800::1'),
      ]);
    });

    it("passes the resolver's failure on, and check leaves it to the connection", async () => {
      const open = policy({}, fakeResolver({}));

      await expect(open.resolve('nowhere.example.org')).rejects.toMatchObject({
        code: 'ENOTFOUND',
      });
      expect(await open.check('nowhere.example.org')).toBeNull();
    });

    it('checks the host of a URL', async () => {
      const open = policy();

      expect(rangeOf(await open.check(new URL('http://169.254.169.254/latest/meta-data/')))).toBe(
        'link-local',
      );
      expect(await open.check(new URL('http://127.0.0.1:13013/cgi-bin/sendsms'))).toBeNull();
    });
  });

  describe('lookup', () => {
    const lookup = (
      subject: OutboundPolicy,
      host: string,
      options: { all?: boolean; family?: number },
    ) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>(
        (resolve) =>
          subject.lookup(host, options, (error, address, family) =>
            resolve({ error, address, family }),
          ),
      );
    const resolver = () =>
      fakeResolver({ 'dual.example.org': [[v6('2606:2800::1'), v4('93.184.216.34')]] });

    it('answers every address, or the first, of the family asked for', async () => {
      const subject = policy({}, resolver());

      expect(await lookup(subject, 'dual.example.org', { all: true })).toMatchObject({
        error: null,
        address: [v6('2606:2800::1'), v4('93.184.216.34')],
      });
      expect(await lookup(subject, 'dual.example.org', { all: true, family: 4 })).toMatchObject({
        address: [v4('93.184.216.34')],
      });
      expect(await lookup(subject, 'dual.example.org', {})).toMatchObject({
        address: '2606:2800::1',
        family: 6,
      });
    });

    it('fails with the refusal for a name that resolves to a refused address', async () => {
      const subject = policy(
        {},
        fakeResolver({ 'metadata.example.org': [[v4('169.254.169.254')]] }),
      );

      const { error } = await lookup(subject, 'metadata.example.org', { all: true });

      expect(error).toBeInstanceOf(OutboundRefusal);
      expect(error).toMatchObject({ code: 'ERR_OUTBOUND_REFUSED', range: 'link-local' });
    });

    it('refuses a node:net connection to a name that resolves to a refused address', async () => {
      const subject = policy(
        {},
        fakeResolver({ 'metadata.example.org': [[v4('169.254.169.254')]] }),
      );

      const error = await new Promise<Error>((resolve) => {
        const socket = connect({ host: 'metadata.example.org', port: 80, lookup: subject.lookup });
        socket.on('error', resolve);
      });

      expect(outboundRefusalOf(error)).toMatchObject({ range: 'link-local' });
    });
  });

  describe('target', () => {
    it('gives an address in its usual form, a name as it is, with the checking lookup', () => {
      const open = policy();

      expect(open.target('0x7f.1')).toEqual({ host: '127.0.0.1', lookup: open.lookup });
      expect(open.target('[::1]')).toEqual({ host: '::1', lookup: open.lookup });
      expect(open.target('smsc.example.org')).toEqual({
        host: 'smsc.example.org',
        lookup: open.lookup,
      });
    });

    it('refuses an address at once', () => {
      expect(policy().target('0251.0376.0251.0376')).toMatchObject({ range: 'link-local' });
    });
  });

  describe('fetch', () => {
    let hits: string[];
    let server: FakeServer;
    let elsewhere: FakeServer;

    // Both close each connection after one answer: each request connects, so is checked, anew.
    beforeEach(async () => {
      hits = [];
      // On every local address, so that a connection to 0.0.0.0 would reach it.
      elsewhere = await startFakeServer((request: IncomingMessage, response: ServerResponse) => {
        hits.push(`elsewhere ${request.url}`);
        response.setHeader('Connection', 'close');
        response.end('internal answer');
      }, '::');
      server = await startFakeServer((request: IncomingMessage, response: ServerResponse) => {
        hits.push(`server ${request.url}`);
        const target = request.url?.slice('/redirect?to='.length) ?? '';
        response.setHeader('Connection', 'close');
        if (request.url?.startsWith('/redirect')) {
          response.writeHead(302, { Location: decodeURIComponent(target) });
          response.end();
        } else {
          response.end('hello');
        }
      });
    });
    afterEach(async () => {
      await Promise.all([server.close(), elsewhere.close()]);
    });

    it('fetches from an allowed address', async () => {
      const open = policy();
      try {
        const response = await open.fetch(`${server.url}/hello`);

        expect([response.status, await response.text()]).toEqual([200, 'hello']);
      } finally {
        await open.close();
      }
    });

    it.each(['0.0.0.0', '[::]'])(
      'refuses %s, where a server listens, without connecting',
      async (host) => {
        const open = policy();
        try {
          const failure = await open
            .fetch(`http://${host}:${elsewhere.port}/`)
            .catch((error: unknown) => error);

          expect(outboundRefusalOf(failure)).toMatchObject({ range: 'unspecified' });
          expect(hits).toEqual([]);
        } finally {
          await open.close();
        }
      },
    );

    it('refuses 169.254.169.254 at once, without a connection attempt to time out', async () => {
      const open = policy();
      try {
        const failure = await open
          .fetch('http://169.254.169.254/latest/meta-data/', {
            signal: AbortSignal.timeout(60_000),
          })
          .catch((error: unknown) => error);

        expect(outboundRefusalOf(failure)).toMatchObject({ range: 'link-local' });
      } finally {
        await open.close();
      }
    });

    it('follows no redirect, to a refused address or any other', async () => {
      const open = policy();
      try {
        for (const to of [`http://0.0.0.0:${elsewhere.port}/`, `${elsewhere.url}/`]) {
          const response = await open.fetch(`${server.url}/redirect?to=${encodeURIComponent(to)}`);

          expect([response.status, response.headers.get('location')]).toEqual([302, to]);
        }
        expect(hits.filter((hit) => hit.startsWith('elsewhere'))).toEqual([]);
      } finally {
        await open.close();
      }
    });

    it('catches a name that re-resolves to a refused address at connect time (DNS rebinding)', async () => {
      const resolver = fakeResolver({
        'rebind.example.org': [[v4('93.184.216.34')], [v4('127.0.0.1')], [v4('0.0.0.0')]],
      });
      const open = policy({}, resolver);
      try {
        // Checked when given: a public address.
        expect(await open.check('rebind.example.org')).toBeNull();
        // Connected to: first an allowed address, then one the policy refuses.
        const allowed = await open.fetch(`http://rebind.example.org:${elsewhere.port}/first`);
        const refused = await open
          .fetch(`http://rebind.example.org:${elsewhere.port}/second`)
          .catch((error: unknown) => error);

        expect(allowed.status).toBe(200);
        expect(outboundRefusalOf(refused)).toMatchObject({
          host: 'rebind.example.org',
          address: '0.0.0.0',
          range: 'unspecified',
        });
        expect(hits).toEqual(['elsewhere /first']);
        expect(resolver.calls).toEqual([
          'rebind.example.org',
          'rebind.example.org',
          'rebind.example.org',
        ]);
      } finally {
        await open.close();
      }
    });
  });
});

describe('outboundRefusalOf', () => {
  it('finds a refusal among the causes of an error, and nothing in other errors', () => {
    const refusal = new OutboundRefusal('169.254.169.254', '169.254.169.254', 'link-local');

    expect(outboundRefusalOf(new TypeError('fetch failed', { cause: refusal }))).toBe(refusal);
    expect(
      outboundRefusalOf(new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') })),
    ).toBeNull();
    expect(outboundRefusalOf('not an error')).toBeNull();
  });
});
