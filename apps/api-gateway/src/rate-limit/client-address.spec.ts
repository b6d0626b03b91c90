import { addressKey } from './client-address';

describe(addressKey.name, () => {
  it('keeps an IPv4 address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts every IPv6 address of one /64 together, and another /64 apart', () => {
    const one = addressKey('2001:db8:1:2::1');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(one);
    expect(addressKey('2001:0db8:0001:0002:0:0:0:9')).toBe(one);
    expect(one).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(one);
  });

  it('puts a missing or unparsable address under one key', () => {
    expect(addressKey(undefined)).toBe('unknown');
    expect(addressKey('not-an-address')).toBe('unknown');
  });
});
