import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { WebhooksEnv } from '../config/webhooks.env';
import { isForbiddenAddress } from '@aas/platform';
import { InvalidWebhookUrlError, assertAllowedWebhookUrl } from './ssrf-guard';

/** A look-up at creation that takes longer is not held against the URL. */
export const URL_LOOKUP_TIMEOUT_MS = 2_000;
/**
 * Look-ups for creations in flight at once per process, counted until each really ends (not at its
 * timeout): getaddrinfo holds one of libuv's 4 threads meanwhile, and the delivery worker's own
 * look-ups need the others, whatever names a tenant makes this process resolve.
 */
export const URL_LOOKUPS_IN_FLIGHT = 2;

/** The addresses a host name resolves to, as connections resolve it (getaddrinfo: /etc/hosts, search domains). */
@Injectable()
export class HostLookup {
  async addresses(hostname: string): Promise<string[]> {
    return (await lookup(hostname, { all: true })).map((entry) => entry.address);
  }
}

/**
 * What a webhook URL must be when it is created or changed: the syntax rules, and, while private networks
 * are not allowed, a host the delivery worker would not refuse. A literal address is judged as it is; a
 * name is resolved once, and refused if any address it resolves to is not public, which is what the
 * connect-time guard (ssrf-guard.ts) refuses too. A name that does not resolve, or not within
 * URL_LOOKUP_TIMEOUT_MS, or while URL_LOOKUPS_IN_FLIGHT look-ups are out, is accepted: the check at
 * every connection still stands, since DNS can change after creation anyway.
 */
@Injectable()
export class WebhookUrlCheck {
  private readonly allowPrivateNetworks: boolean;
  private inFlight = 0;

  constructor(
    private readonly hosts: HostLookup,
    config: ConfigService<WebhooksEnv, true>,
  ) {
    this.allowPrivateNetworks = config.get('WEBHOOK_ALLOW_PRIVATE_NETWORKS', { infer: true });
  }

  /** @throws InvalidWebhookUrlError saying why the URL is refused. */
  async assertAllowed(url: string): Promise<void> {
    assertAllowedWebhookUrl(url);
    if (this.allowPrivateNetworks) return;
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) {
      if (isForbiddenAddress(host)) throw new InvalidWebhookUrlError(`${host} is not a public address; ${NOT_CALLED}`);
      return;
    }
    const forbidden = (await this.resolve(host)).find(isForbiddenAddress);
    if (forbidden !== undefined) throw new InvalidWebhookUrlError(`the host ${host} resolves to ${forbidden}, which is not a public address; ${NOT_CALLED}`);
  }

  /** The host's addresses, or none when they cannot be known in time. */
  private async resolve(host: string): Promise<string[]> {
    if (this.inFlight >= URL_LOOKUPS_IN_FLIGHT) return [];
    this.inFlight += 1;
    const settled = this.hosts.addresses(host).finally(() => (this.inFlight -= 1));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), URL_LOOKUP_TIMEOUT_MS)));
    // A name that does not resolve is not refused here: the receiver may not be in DNS yet.
    const answer = settled.catch((): string[] => []);
    return Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
  }
}

const NOT_CALLED =
  'this installation does not call loopback, private, link-local or other non-public addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS is false), so every delivery to it would be refused';
