import { isIP } from 'node:net';
import { ipAddressOf } from './ip-address';

export type Family = 'ipv4' | 'ipv6';

export interface CidrRange {
  network: string;
  prefix: number;
  family: Family;
}

/** OUTBOUND_ALLOW, read: host names (lowercase, without a final dot) and address ranges. */
export interface OutboundAllow {
  hosts: readonly string[];
  ranges: readonly CidrRange[];
}

export interface OutboundSettings {
  blockPrivate: boolean;
  allow: OutboundAllow;
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Whether `host` is a host name as DNS writes them; its last label holds a letter (a TLD). */
function isHostName(host: string): boolean {
  const labels = host.split('.');
  return (
    host.length <= 253 &&
    labels.every((label) => LABEL.test(label)) &&
    /[a-z]/.test(labels[labels.length - 1])
  );
}

/**
 * Reads OUTBOUND_ALLOW, a comma-separated list of host names, IP addresses and CIDR ranges;
 * `invalid` lists the entries that are none of these.
 */
export function parseOutboundAllow(value: string): { allow: OutboundAllow; invalid: string[] } {
  const hosts: string[] = [];
  const ranges: CidrRange[] = [];
  const invalid: string[] = [];
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const range = cidrRange(entry);
    const host = hostName(entry);
    if (range) {
      ranges.push(range);
    } else if (isHostName(host) && ipAddressOf(host) === null) {
      hosts.push(host);
    } else {
      invalid.push(entry);
    }
  }
  return { allow: { hosts, ranges }, invalid };
}

/** An address (`10.0.0.5`, `[fd00::1]`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`), or null. */
function cidrRange(entry: string): CidrRange | null {
  const [written, prefix, ...rest] = entry.split('/');
  const network = /^\[(.*)\]$/.exec(written)?.[1] ?? written;
  const version = isIP(network);
  if (version === 0 || rest.length > 0) {
    return null;
  }
  const bits = version === 4 ? 32 : 128;
  if (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits)) {
    return null;
  }
  return {
    network,
    prefix: prefix === undefined ? bits : Number(prefix),
    family: version === 4 ? 'ipv4' : 'ipv6',
  };
}

/** Host names compare without case and without the final dot of a fully qualified name. */
export function hostName(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}
