import { isIP } from 'node:net';

/**
 * `host` as the IP address a connection to it would reach, or null when it is a host name.
 * Every notation that resolvers and URL parsers take for an address is read, so that a check
 * cannot be dodged by writing the address another way: IPv6 in brackets or with a zone
 * (`[::1]`, `fe80::1%eth0`, the zone dropped), and IPv4 in one to four parts, each decimal,
 * octal (leading 0) or hexadecimal (0x), as inet_aton reads them (`0x7f.1`, `2130706433`,
 * `017700000001` are all 127.0.0.1).
 */
export function ipAddressOf(host: string): string | null {
  const unbracketed = /^\[(.*)\]$/.exec(host)?.[1] ?? host;
  if (isIP(unbracketed) === 6) {
    return unbracketed.replace(/%.*$/, '').toLowerCase();
  }
  return looseIpv4(host);
}

/** `host` read as an IPv4 address in inet_aton's notations (a final dot allowed), or null. */
function looseIpv4(host: string): string | null {
  const parts = host.replace(/\.$/, '').split('.');
  if (parts.length > 4) {
    return null;
  }
  const numbers = parts.map(ipv4Part);
  if (numbers.some((part) => part === null)) {
    return null;
  }
  const values = numbers as number[];
  const last = values.pop() as number;
  // The last part fills the bytes the others leave: `127.1` is 127.0.0.1.
  if (values.some((part) => part > 255) || last >= 256 ** (4 - values.length)) {
    return null;
  }
  const value = values.reduce((sum, part, index) => sum + part * 256 ** (3 - index), last);
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function ipv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) {
    // A bare `0x` is 0, as URL parsers read it.
    return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  }
  if (/^0[0-7]+$/.test(part)) {
    return parseInt(part, 8);
  }
  if (/^(0|[1-9][0-9]*)$/.test(part)) {
    return Number(part);
  }
  return null;
}
