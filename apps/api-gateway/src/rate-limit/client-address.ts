import ipaddr from 'ipaddr.js';

/**
 * The key a client address is counted under: an IPv4 address as it is (also when it arrives
 * IPv4-mapped, ::ffff:a.b.c.d), an IPv6 address by its /64, the smallest block a single
 * subscriber is usually given, so that one client cannot take a fresh allowance per address.
 */
export function addressKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
