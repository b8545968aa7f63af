import { LookupAddress, promises as dns } from 'node:dns';
import { BlockList, LookupFunction, isIP } from 'node:net';
import type { Agent, RequestInfo, RequestInit, Response } from 'undici';
import { ipAddressOf } from './ip-address';
import { Family, OutboundSettings, hostName } from './outbound-allow';

/** The address ranges the policy may refuse, by the name its refusals give them. */
export type RefusedRange =
  'link-local' | 'unspecified' | 'loopback' | 'private' | 'unique-local' | 'CGNAT';

type RangeRule = [RefusedRange, string, number, Family];

/** Never a provider: cloud metadata services live in link-local space; 0.0.0.0 reaches this host. */
const ALWAYS_REFUSED: readonly RangeRule[] = [
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
];

/** This host and the networks behind it, refused with OUTBOUND_BLOCK_PRIVATE. */
const PRIVATE: readonly RangeRule[] = [
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['unique-local', 'fc00::', 7, 'ipv6'],
  ['CGNAT', '100.64.0.0', 10, 'ipv4'],
];

/** How host names become addresses; the system resolver (getaddrinfo) unless a test injects one. */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (host) => dns.lookup(host, { all: true });

/**
 * A connection the outbound policy refuses. Its message says only the policy's decision, in
 * words that fit after a parameter name: `adapter_data[host] : <message>`.
 */
export class OutboundRefusal extends Error {
  readonly code = 'ERR_OUTBOUND_REFUSED';

  /**
   * @param host the destination as given (a name, or the address itself).
   * @param address the address it was refused for.
   */
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: RefusedRange,
  ) {
    super(
      `${
        host === address
          ? `the address ${address} is refused`
          : `the host ${host} resolves to an address refused`
      } by the server's outbound policy (${range}); an operator can allow it with OUTBOUND_ALLOW.`,
    );
    this.name = 'OutboundRefusal';
  }
}

/** The refusal `error` is, or was caused by (fetch wraps connection errors), or null. */
export function outboundRefusalOf(error: unknown): OutboundRefusal | null {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth += 1) {
    if (cause instanceof OutboundRefusal) {
      return cause;
    }
    cause = cause.cause;
  }
  return null;
}

/** Where a connection to a host goes: its checked address, or its name and a checking lookup. */
export interface OutboundTarget {
  host: string;
  lookup: LookupFunction;
}

/**
 * Which addresses the server may connect to for a destination a user gave (a provider URL, an
 * SMSC host, a webhook). Addresses are checked where the connection is made, after DNS: every
 * address a name resolves to must be allowed, at each connection, so a name that resolves, or
 * later re-resolves, to a refused address is refused and nothing is connected to.
 */
export class OutboundPolicy {
  private readonly allowedHosts: ReadonlySet<string>;
  private readonly allowedRanges = new BlockList();
  private readonly refusedRanges: ReadonlyArray<[RefusedRange, BlockList]>;
  private agent: Agent | null = null;

  constructor(
    settings: OutboundSettings,
    private readonly resolver: Resolver = systemResolver,
  ) {
    this.allowedHosts = new Set(settings.allow.hosts);
    for (const { network, prefix, family } of settings.allow.ranges) {
      this.allowedRanges.addSubnet(network, prefix, family);
    }
    const rules = settings.blockPrivate ? [...ALWAYS_REFUSED, ...PRIVATE] : ALWAYS_REFUSED;
    const byRange = new Map<RefusedRange, BlockList>();
    for (const [range, network, prefix, family] of rules) {
      const list = byRange.get(range) ?? new BlockList();
      list.addSubnet(network, prefix, family);
      byRange.set(range, list);
    }
    this.refusedRanges = [...byRange];
  }

  /**
   * Why connecting to `address` is refused, or null. `host` is the name it was resolved from,
   * which OUTBOUND_ALLOW may list. IPv4-mapped IPv6 addresses (`::ffff:169.254.169.254`) are
   * judged as the IPv4 address they reach.
   */
  refusal(address: string, host: string = address): OutboundRefusal | null {
    const family: Family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (this.allowedHosts.has(hostName(host)) || this.allowedRanges.check(address, family)) {
      return null;
    }
    const refused = this.refusedRanges.find(([, list]) => list.check(address, family));
    return refused ? new OutboundRefusal(host, address, refused[0]) : null;
  }

  /**
   * The addresses to connect to for `host`, all of them allowed. Rejects with an
   * `OutboundRefusal` when any address it resolves to is refused, or with the resolver's error.
   */
  async resolve(host: string): Promise<LookupAddress[]> {
    const literal = ipAddressOf(host);
    if (literal !== null) {
      const refusal = this.refusal(literal);
      if (refusal) {
        throw refusal;
      }
      return [{ address: literal, family: isIP(literal) }];
    }
    const addresses = await this.resolver(host);
    for (const { address } of addresses) {
      const refusal = this.refusal(address, host);
      if (refusal) {
        throw refusal;
      }
    }
    return addresses;
  }

  /**
   * Checks a destination when a user gives it (a URL or a host): null when the server may
   * connect to it now, else the refusal. A host that does not resolve is not refused here: the
   * connection will say what is wrong with it. Connections check again whatever this says.
   */
  async check(destination: string | URL): Promise<OutboundRefusal | null> {
    const host = destination instanceof URL ? destination.hostname : destination;
    try {
      await this.resolve(host);
      return null;
    } catch (error) {
      return outboundRefusalOf(error);
    }
  }

  /**
   * A `lookup` for node:net and node:tls connections: it answers only allowed addresses, and
   * fails the connection with an `OutboundRefusal` when the name resolves to a refused one.
   * Connections skip `lookup` for an address: give them `target(host)` instead of `host`.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        const family = familyOf(options.family);
        const wanted = addresses.filter((address) => !family || address.family === family);
        if (wanted.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          callback(error, '');
        } else if (options.all) {
          callback(null, wanted);
        } else {
          callback(null, wanted[0].address, wanted[0].family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  /**
   * What to give node:net (or a package that passes its options to it, such as `smpp`) to
   * connect to `host`: an address, in whatever notation, is checked now and given in its
   * usual form; a name is given with `lookup`, which checks what it resolves to at connect.
   */
  target(host: string): OutboundTarget | OutboundRefusal {
    const literal = ipAddressOf(host);
    if (literal === null) {
      return { host, lookup: this.lookup };
    }
    return this.refusal(literal) ?? { host: literal, lookup: this.lookup };
  }

  /**
   * fetch for a URL a user gave: every connection is checked (a refusal rejects with a
   * TypeError whose cause is the `OutboundRefusal`; see `outboundRefusalOf`), and redirects
   * are never followed: a 3xx is the answer. undici is loaded at the first call: a process
   * whose phones and webhooks never make a request does not hold it.
   */
  async fetch(url: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
    const undici = await import('undici');
    return undici.fetch(url, { ...init, redirect: 'manual', dispatcher: this.dispatcher(undici) });
  }

  /** Closes the connections `fetch` keeps open. */
  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = null;
    await agent?.close();
  }

  private dispatcher(undici: typeof import('undici')): Agent {
    if (!this.agent) {
      const connect = undici.buildConnector({ lookup: this.lookup });
      this.agent = new undici.Agent({
        connect: (options, callback) => {
          // The connector skips `lookup` for an address, so it is checked here.
          const target = this.target(options.hostname);
          if (target instanceof OutboundRefusal) {
            queueMicrotask(() => callback(target, null));
            return;
          }
          connect({ ...options, hostname: target.host }, callback);
        },
      });
    }
    return this.agent;
  }
}

/** A lookup's `family` option as 4, 6, or 0 for either. */
function familyOf(family: number | 'IPv4' | 'IPv6' | undefined): number {
  return family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : (family ?? 0);
}
