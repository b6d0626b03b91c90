import * as dns from 'node:dns';
import { LookupFunction, isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

export const SSRF_BLOCKED = 'ERR_SSRF_BLOCKED';

// Cloud metadata services; both already fall in non-unicast ranges, listed so that stays true on purpose.
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254'].map((ip) => ipaddr.parse(ip).toByteArray().join('.')));

/** The error a webhook connection fails with when its host resolves to an address it must not reach. */
export class SsrfBlockedError extends Error {
  readonly code = SSRF_BLOCKED;

  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(
      hostname === address
        ? `webhook address ${address} is not a public address`
        : `webhook host ${hostname} resolves to ${address}, which is not a public address`,
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
export function guardLookup(resolve: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      // With `all` (Node's default happy-eyeballs connect), any of the addresses may be the one dialled.
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      const forbidden = addresses.find(isForbiddenAddress);
      if (forbidden !== undefined) return callback(new SsrfBlockedError(hostname, forbidden), '');
      callback(null, address, family);
    });
  };
}

export interface WebhookDispatcherOptions {
  allowPrivateNetworks: boolean;
  connectTimeoutMs: number;
}

/**
 * The HTTP client for webhook deliveries. The address check runs on what DNS returned at connect time,
 * so a host that passed validation and later resolves (or rebinds) to an internal address is still refused.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): Agent {
  if (options.allowPrivateNetworks) return new Agent({ connect: { timeout: options.connectTimeoutMs } });
  const connect = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardLookup(dns.lookup) });
  return new Agent({
    connect: (target, callback) => {
      // net.connect skips the lookup for an IP literal host, so the guarded lookup never sees those.
      if (isIP(target.hostname) && isForbiddenAddress(target.hostname)) {
        const error = new SsrfBlockedError(target.hostname, target.hostname);
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

export class InvalidWebhookUrlError extends Error {
  override name = 'InvalidWebhookUrlError';
}

/**
 * Validation of a webhook URL when it is created or updated. It resolves nothing: the address is
 * checked at connect time by createWebhookDispatcher, where DNS answers cannot change afterwards.
 */
export function assertAllowedWebhookUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidWebhookUrlError('the webhook URL must be an absolute http or https URL');
  }
  // An http(s) URL that parses always has a host: the WHATWG parser rejects `http://` and the like.
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidWebhookUrlError(`the webhook URL must use http or https, not ${parsed.protocol}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InvalidWebhookUrlError('the webhook URL must not contain a username or password');
  }
  // Checked on the text: the parser reports an empty fragment (`#` alone) as no fragment.
  if (url.includes('#')) throw new InvalidWebhookUrlError('the webhook URL must not contain a fragment (#)');
}
