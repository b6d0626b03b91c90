import { Injectable, Logger, RawBodyRequest } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { CHAIN_HEADER, InstallationChainKey, inboundTargetOf } from '@aas/platform';
import type { FastifyRequest } from 'fastify';
import { GatewayEnv } from '../config/gateway.env';

/**
 * Tells calls that this installation's webhook-delivery made to one of its own inbound endpoints: they
 * carry the aas-chain header, signed with the installation's key over their webhook-id and body. They all
 * come from the few addresses webhook-delivery sends from, so charging them to that address would let
 * one tenant's webhooks use up the allowance of every other tenant's; the per-address charge skips them.
 * Only inbound endpoint calls are recognised, each for the endpoint its header was signed for: a captured
 * header (every receiver of a delivery gets one) replayed onto another URL is not recognised, and a replay
 * to the same endpoint within its 5 minutes is the same delivery again, answered with its first run.
 */
@Injectable()
export class InstallationDeliveries {
  private readonly key?: InstallationChainKey;

  constructor(config: ConfigService<GatewayEnv, true>) {
    const secret = config.get('WEBHOOK_SECRET_KEY', { infer: true });
    if (secret) this.key = InstallationChainKey.derivedFrom(secret);
    else new Logger(InstallationDeliveries.name).log('WEBHOOK_SECRET_KEY is not set: calls from this installation\'s webhooks to its inbound endpoints are charged to their address');
  }

  /** True when this call is an inbound endpoint call made by this installation's own webhook delivery. */
  sentByThisInstallation(request: RawBodyRequest<FastifyRequest>): boolean {
    const target = inboundTargetOf(request.url);
    if (!this.key || target === '') return false;
    const header = request.headers[CHAIN_HEADER];
    const deliveryId = request.headers['webhook-id'];
    if (typeof header !== 'string' || typeof deliveryId !== 'string') return false;
    return this.key.verify(header, { deliveryId, body: request.rawBody?.toString('utf8') ?? '', target, now: new Date() }) !== null;
  }
}
