import { ValidateBy, ValidationOptions } from 'class-validator';
import ipaddr from 'ipaddr.js';

/** Names Fastify (proxy-addr) accepts for the ranges they stand for. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Fastify's `trustProxy` option: `false` (the peer of the connection is the
 * client), or the addresses, CIDR ranges and range names of the proxies whose X-Forwarded-For to
 * believe (the client is then the last address in it that is not one of them). `true` (believe
 * any X-Forwarded-For) is refused, since the client could then choose the address it is
 * rate-limited under; so is a hop count, which Fastify cannot check against the peer.
 */
export function parseTrustProxy(value: string): false | string[] {
  const text = value.trim();
  if (text === 'false') return false;
  if (/^\d+$/.test(text)) throw new Error('a hop count cannot tell a proxy from a client; name the proxies instead');
  const entries = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0) throw new Error('no proxy address given');
  for (const entry of entries) {
    if (entry === 'true') throw new Error('true would let any client choose its own address; name the proxies instead');
    if (!RANGE_NAMES.has(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry)) {
      throw new Error(`${JSON.stringify(entry)} is not an address, a CIDR range or one of ${[...RANGE_NAMES].join(', ')}`);
    }
  }
  return entries;
}

export function IsTrustProxySetting(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTrustProxySetting',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && trustProxyError(value) === undefined,
        defaultMessage: (args) =>
          `TRUST_PROXY must be false or a comma-separated list of proxy addresses and CIDR ranges: ${
            typeof args?.value === 'string' ? trustProxyError(args.value) : 'not a string'
          }`,
      },
    },
    options,
  );
}

function trustProxyError(value: string): string | undefined {
  try {
    parseTrustProxy(value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
