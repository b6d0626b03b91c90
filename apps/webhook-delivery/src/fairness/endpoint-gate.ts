import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Batcher, REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { WebhooksEnv } from '../config/webhooks.env';
import { CircuitSettings, EndpointHealth, cooldownSchedule } from './circuit-breaker';
import { ADMIT, AdmitVerdict, CircuitChangeCode, RELEASE } from './endpoint-gate.scripts';

export const ENDPOINT_GATE_SETTINGS = Symbol('ENDPOINT_GATE_SETTINGS');

export interface EndpointGateSettings {
  /** Deliveries of one webhook in flight at once (0: no limit). */
  maxInFlightPerEndpoint: number;
  /** Deliveries of one user's webhooks in flight at once (0: no limit). */
  maxInFlightPerUser: number;
  /** How long a slot is held unless given back: longer than any attempt, so only a dead worker's slots lapse. */
  leaseMs: number;
  circuit: CircuitSettings;
}

/**
 * Margin of a slot's lease over WEBHOOK_TIMEOUT_MS: an attempt gives its slots back as soon as its
 * answer (or timeout) is in, so only the slots of a worker that died run to the end of the lease.
 */
const LEASE_MARGIN_MS = 5_000;

export function endpointGateSettings(config: ConfigService<WebhooksEnv, true>): EndpointGateSettings {
  const setting = <K extends keyof WebhooksEnv>(key: K) => config.get(key, { infer: true });
  return {
    maxInFlightPerEndpoint: setting('WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT'),
    maxInFlightPerUser: setting('WEBHOOK_MAX_IN_FLIGHT_PER_USER'),
    leaseMs: setting('WEBHOOK_TIMEOUT_MS') + LEASE_MARGIN_MS,
    circuit: {
      failureThreshold: setting('WEBHOOK_CIRCUIT_FAILURE_THRESHOLD'),
      cooldownMs: setting('WEBHOOK_CIRCUIT_COOLDOWN_MS'),
      maxCooldownMs: setting('WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS'),
    },
  };
}

/** The endpoint of a delivery: its webhook, and the user who owns it. */
export interface Endpoint {
  webhookId: string;
  userId: string;
}

/** A delivery the gate let through: its slots, to give back with `release`. */
export interface Pass extends Endpoint {
  leaseId: string;
  /** It is the one attempt a half-open circuit lets through. */
  probe: boolean;
}

export type Admission =
  | { kind: 'admitted'; pass: Pass }
  | { kind: 'circuit-open'; waitMs: number }
  | { kind: 'probe-in-flight'; waitMs: number }
  /** `heldMs`: how long the median slot of the webhook's (or user's) full set has been held. */
  | { kind: 'endpoint-busy'; heldMs: number }
  | { kind: 'user-busy'; heldMs: number };

export type CircuitChange = { kind: 'opened'; cooldownMs: number; afterProbe: boolean } | { kind: 'closed' };

/** A circuit's state outlives its last failure by this much (twice the longest cool-down, if longer). */
const CIRCUIT_KEPT_MS = 24 * 3_600_000;
/** Deliveries per script call; concurrent calls go together (Batcher), so a busy worker makes few round trips. */
const BATCH = { maxBatchSize: 200, maxConcurrentBatches: 2 };

interface Release {
  pass: Pass;
  health: EndpointHealth;
}

/**
 * Fairness between endpoints and users, shared by every webhook-delivery process through Redis: a
 * limit on deliveries in flight per webhook and per user, and a circuit breaker per webhook. A delivery
 * is admitted (and holds its slots until `release`) or told why not and for how long; the caller defers
 * it. One script call admits a whole batch of deliveries, one releases a batch.
 */
@Injectable()
export class EndpointGate {
  private readonly cooldowns: number[];
  private readonly admits = new Batcher<{ endpoint: Endpoint; leaseId: string }, Admission>((items) => this.admitMany(items), BATCH);
  private readonly releases = new Batcher<Release, CircuitChange | undefined>((items) => this.releaseMany(items), BATCH);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
    @Inject(ENDPOINT_GATE_SETTINGS) private readonly settings: EndpointGateSettings,
  ) {
    this.cooldowns = cooldownSchedule(settings.circuit);
    redis.defineCommand('webhookGateAdmit', { lua: ADMIT });
    redis.defineCommand('webhookGateRelease', { lua: RELEASE });
  }

  admit(endpoint: Endpoint): Promise<Admission> {
    const leaseId = randomUUID();
    // Every limit and the circuit breaker turned off: nothing to ask Redis.
    if (!this.enabled) return Promise.resolve({ kind: 'admitted', pass: { ...endpoint, leaseId, probe: false } });
    return this.admits.submit({ endpoint, leaseId });
  }

  /** Gives the slots back and reports the attempt to the circuit; answers what became of the circuit, if anything. */
  release(pass: Pass, health: EndpointHealth): Promise<CircuitChange | undefined> {
    if (!this.enabled) return Promise.resolve(undefined);
    return this.releases.submit({ pass, health });
  }

  /**
   * When each webhook's open circuit lets an attempt through next, for those that are open now (the
   * health object's circuit_open_until); a closed or half-open circuit has no entry. One round trip.
   */
  async circuitsOpenUntil(webhookIds: string[]): Promise<Map<string, Date>> {
    const open = new Map<string, Date>();
    if (this.settings.circuit.failureThreshold === 0 || webhookIds.length === 0) return open;
    const pipeline = this.redis.pipeline();
    for (const id of webhookIds) pipeline.hget(this.circuitKey(id), 'reopen_at');
    const replies = (await pipeline.exec()) ?? [];
    // reopen_at is on Redis's clock; the processes' clocks are taken to agree with it within the second.
    const now = Date.now();
    replies.forEach(([error, reopenAt], i) => {
      if (error) throw error;
      if (reopenAt !== null && Number(reopenAt) > now) open.set(webhookIds[i], new Date(Number(reopenAt)));
    });
    return open;
  }

  private get enabled(): boolean {
    const { maxInFlightPerEndpoint, maxInFlightPerUser, circuit } = this.settings;
    return maxInFlightPerEndpoint > 0 || maxInFlightPerUser > 0 || circuit.failureThreshold > 0;
  }

  private async admitMany(items: { endpoint: Endpoint; leaseId: string }[]): Promise<Admission[]> {
    const { leaseMs, maxInFlightPerEndpoint, maxInFlightPerUser } = this.settings;
    const reply = (await this.call(
      'webhookGateAdmit',
      items.flatMap((item) => this.keysOf(item.endpoint)),
      [leaseMs, maxInFlightPerEndpoint, maxInFlightPerUser, this.settings.circuit.failureThreshold > 0 ? 1 : 0, ...items.map((item) => item.leaseId)],
    )) as number[];
    return items.map((item, i) => admissionOf(reply[2 * i], reply[2 * i + 1], { ...item.endpoint, leaseId: item.leaseId }));
  }

  private async releaseMany(items: Release[]): Promise<(CircuitChange | undefined)[]> {
    const keep = Math.max(CIRCUIT_KEPT_MS, 2 * this.settings.circuit.maxCooldownMs);
    const reply = (await this.call(
      'webhookGateRelease',
      items.flatMap((item) => this.keysOf(item.pass)),
      [
        this.settings.circuit.failureThreshold,
        keep,
        this.cooldowns.length,
        ...this.cooldowns,
        ...items.flatMap((item) => [item.pass.leaseId, item.health]),
      ],
    )) as number[];
    return items.map((item, i) => changeOf(reply[2 * i], reply[2 * i + 1], item.pass.probe));
  }

  private call(command: 'webhookGateAdmit' | 'webhookGateRelease', keys: string[], args: (string | number)[]): Promise<unknown> {
    const run = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[command];
    return run.call(this.redis, keys.length, ...keys, ...args);
  }

  private keysOf(endpoint: Endpoint): string[] {
    return [
      this.keyspace.key('webhooks', 'in-flight', 'webhook', endpoint.webhookId),
      this.keyspace.key('webhooks', 'in-flight', 'user', endpoint.userId),
      this.circuitKey(endpoint.webhookId),
    ];
  }

  private circuitKey(webhookId: string): string {
    return this.keyspace.key('webhooks', 'circuit', webhookId);
  }
}

function admissionOf(verdict: number, waitMs: number, pass: Omit<Pass, 'probe'>): Admission {
  switch (verdict as AdmitVerdict) {
    case AdmitVerdict.Admitted:
      return { kind: 'admitted', pass: { ...pass, probe: false } };
    case AdmitVerdict.AdmittedAsProbe:
      return { kind: 'admitted', pass: { ...pass, probe: true } };
    case AdmitVerdict.CircuitOpen:
      return { kind: 'circuit-open', waitMs };
    case AdmitVerdict.ProbeInFlight:
      return { kind: 'probe-in-flight', waitMs };
    case AdmitVerdict.EndpointBusy:
      return { kind: 'endpoint-busy', heldMs: waitMs };
    case AdmitVerdict.UserBusy:
      return { kind: 'user-busy', heldMs: waitMs };
  }
  throw new Error(`the endpoint gate answered an unknown verdict ${verdict}`);
}

function changeOf(code: number, cooldownMs: number, probe: boolean): CircuitChange | undefined {
  switch (code as CircuitChangeCode) {
    case CircuitChangeCode.Opened:
      return { kind: 'opened', cooldownMs, afterProbe: probe };
    case CircuitChangeCode.Closed:
      return { kind: 'closed' };
    default:
      return undefined;
  }
}
