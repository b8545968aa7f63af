import { ipAddressOf } from './ip-address';

describe('ipAddressOf', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['169.254.43518', '169.254.169.254'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['10.0.0.1.', '10.0.0.1'],
  ])('reads the IPv4 notation %p as %s', (host, address) => {
    expect(ipAddressOf(host)).toBe(address);
  });

  it.each([
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['[::]', '::'],
    ['FE80::1%eth0', 'fe80::1'],
    ['[::ffff:169.254.169.254]', '::ffff:169.254.169.254'],
  ])('reads the IPv6 address %p as %s', (host, address) => {
    expect(ipAddressOf(host)).toBe(address);
  });

  it.each([
    'smsc.example.org',
    'localhost',
    '1.2.3.4.5',
    '256.1.1.1',
    '4294967296',
    '08.1.1.1',
    '0x1g',
    '1..1',
    '',
    '[smsc.example.org]',
  ])('takes %p for a host name', (host) => {
    expect(ipAddressOf(host)).toBeNull();
  });
});
