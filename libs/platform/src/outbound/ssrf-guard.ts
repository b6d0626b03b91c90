import * as dns from 'node:dns';
import { LookupFunction, isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

export const SSRF_BLOCKED = 'ERR_SSRF_BLOCKED';

// Cloud metadata services; both already fall in non-unicast ranges, listed so that stays true on purpose.
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254'].map((ip) => ipaddr.parse(ip).toByteArray().join('.')));

/** The error a guarded connection fails with when its host resolves to an address it must not reach. */
export class SsrfBlockedError extends Error {
  readonly code = SSRF_BLOCKED;

  /** `subject` names what was being called in the message ("webhook", "http_request"). */
  constructor(
    readonly hostname: string,
    readonly address: string,
    subject = 'the',
  ) {
    super(
      hostname === address
        ? `${subject} address ${address} is not a public address`
        : `${subject} host ${hostname} resolves to ${address}, which is not a public address`,
    );
    this.name = 'SsrfBlockedError';
  }
}

/** True for anything but a public unicast address, IPv4-mapped IPv6 judged as its IPv4 address; also for non-IPs. */
export function isForbiddenAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  const address = ipaddr.process(ip);
  return address.range() !== 'unicast' || METADATA_ADDRESSES.has(address.toByteArray().join('.'));
}

/** Wraps a lookup so a connection fails with SsrfBlockedError if any resolved address is forbidden. */
export function guardLookup(resolve: LookupFunction, subject?: string): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      // With `all` (Node's default happy-eyeballs connect), any of the addresses may be the one dialled.
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      const forbidden = addresses.find(isForbiddenAddress);
      if (forbidden !== undefined) return callback(new SsrfBlockedError(hostname, forbidden, subject), '');
      callback(null, address, family);
    });
  };
}

export interface GuardedDispatcherOptions {
  allowPrivateNetworks: boolean;
  connectTimeoutMs: number;
  /** What is being called, for the refusal's message ("webhook" gives "webhook host … resolves to …"). */
  subject?: string;
}

/**
 * An undici HTTP client that only reaches public addresses (webhook deliveries, the runtime's http_request).
 * The address check runs on what DNS returned at connect time, so a host that passed validation and later
 * resolves (or rebinds) to an internal address is still refused.
 */
export function createGuardedDispatcher(options: GuardedDispatcherOptions): Agent {
  if (options.allowPrivateNetworks) return new Agent({ connect: { timeout: options.connectTimeoutMs } });
  const connect = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardLookup(dns.lookup, options.subject) });
  return new Agent({
    connect: (target, callback) => {
      // net.connect skips the lookup for an IP literal host, so the guarded lookup never sees those.
      if (isIP(target.hostname) && isForbiddenAddress(target.hostname)) {
        const error = new SsrfBlockedError(target.hostname, target.hostname, options.subject);
        // Asynchronously, as undici's own connector always answers.
        queueMicrotask(() => callback(error, null));
        return;
      }
      connect(target, callback);
    },
  });
}

/** Whether an error, or any error in its `cause` chain (fetch and wrappers nest them), is an SSRF refusal. */
export function isSsrfBlocked(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    if ((current as { code?: unknown }).code === SSRF_BLOCKED) return true;
    seen.add(current);
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
