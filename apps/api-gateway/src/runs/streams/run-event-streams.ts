import { BeforeApplicationShutdown, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  AgentsPatterns,
  RUN_STREAM_HEADS_MAX,
  RunEventsResponse,
  RunsPatterns,
} from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import type { ServerResponse } from 'node:http';
import { ApiKeyAuthenticator } from '../../auth/api-key-authenticator';
import { RevocationState } from '../../auth/revocation-state';
import { GatewayEnv } from '../../config/gateway.env';
import { LiveStream, LiveStreamHost, STREAM_PAGE, StreamOwner, StreamTarget } from './live-stream';
import { RunEventHub } from './run-event-hub';
import { StreamSlots } from './stream-slots';

const TICK_MS = 5000;

/** A stream ready to start: its run's channel is subscribed and its first page read. */
export interface OpenedStream {
  stream: LiveStream;
  first: RunEventsResponse;
  finishedAt: number | undefined;
}

/**
 * A run's events as Server-Sent Events, pushed (docs/architecture.md, "Live event streams"): runs-service
 * publishes each event on the run's Redis channel once committed; a stream reads the backlog after
 * Last-Event-ID once, then follows the pushes. No stream polls: one request per STREAM_CHECK_INTERVAL_MS
 * asks runs-service where all of this gateway's streams stand, to recover a lost push or a deletion
 * missed. Each user may have STREAMS_PER_USER streams open (across replicas); revoking the key, ending
 * the console session or deleting the agent ends the streams opened with or on it at once.
 */
@Injectable()
export class RunEventStreams implements LiveStreamHost, OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunEventStreams.name);
  readonly bufferLimit: number;
  private readonly checkEveryMs: number;
  private readonly open = new Map<LiveStream, string>();
  private readonly byKey = new Map<string, Set<LiveStream>>();
  private readonly bySession = new Map<string, Set<LiveStream>>();
  private readonly byAgent = new Map<string, Set<LiveStream>>();
  private timers: NodeJS.Timeout[] = [];
  private checking = false;

  constructor(
    config: ConfigService<GatewayEnv, true>,
    private readonly services: ServiceClient,
    private readonly hub: RunEventHub,
    private readonly slots: StreamSlots,
    private readonly revocations: RevocationState,
    private readonly keys: ApiKeyAuthenticator,
  ) {
    this.bufferLimit = config.get('STREAM_BUFFER_BYTES', { infer: true });
    this.checkEveryMs = config.get('STREAM_CHECK_INTERVAL_MS', { infer: true });
  }

  onModuleInit(): void {
    this.revocations.onRevoked((keyId) => this.closeAll(this.byKey.get(keyId), 'key revoked'));
    this.revocations.onSessionEnded((sessionId) => this.closeAll(this.bySession.get(sessionId), 'session ended'));
    this.revocations.onAgentDeleted((userId, agentId) => this.closeAll(this.byAgent.get(`${userId}:${agentId}`), 'agent deleted'));
    // Announcements may have been missed: every credential is verified again, and every run looked at.
    this.revocations.onGap(() => void this.verifyOwners([...this.open.keys()]).then(() => this.check()));
    this.hub.onResync(() => void this.check());
    const tick = setInterval(() => {
      const now = Date.now();
      for (const stream of this.open.keys()) stream.tick(now);
    }, TICK_MS);
    const check = setInterval(() => void this.check(), this.checkEveryMs);
    this.timers = [tick, check];
    for (const timer of this.timers) timer.unref();
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  /** Runs before the HTTP server closes, which would otherwise wait for every stream to end; clients reconnect elsewhere. */
  beforeApplicationShutdown(): void {
    this.closeAll(new Set(this.open.keys()), 'shutting down');
  }

  get openStreams(): number {
    return this.open.size;
  }

  /**
   * Takes a slot of the user's cap, subscribes to the run's channel, then asks runs-service for the run
   * (a 404 for another user's run, a deleted one or one of a deleted agent) and the first page after
   * Last-Event-ID. Throws (400, 404, 429, 503) before anything is written, so errors are Problem Details.
   */
  async openStream(target: StreamTarget, owner: StreamOwner, lastEventId: string | undefined, announcementsAtAuth: number): Promise<OpenedStream> {
    const after = parseLastEventId(lastEventId);
    const slot = await this.slots.acquire(target.userId);
    const stream = new LiveStream(target, owner, after, this);
    try {
      await this.hub.join(target.runId, stream);
      const [{ run }, first] = await Promise.all([
        this.services.request(RunsPatterns.GetRun, { user_id: target.userId, agent_id: target.agentId, run_id: target.runId }, target.requestId),
        this.read(target, after),
      ]);
      // Deleted (pushed `gone`) while this was being read.
      if (stream.isClosed) throw new ResourceNotFoundError('Run', target.runId);
      this.register(stream, slot);
      // A revocation announced between authentication and now was not seen by this stream: check its credential.
      if (this.revocations.announcements !== announcementsAtAuth) void this.verifyOwners([stream]);
      return { stream, first, finishedAt: run.is_finished ? run.event_count - 1 : undefined };
    } catch (error) {
      this.hub.leave(target.runId, stream);
      this.slots.release(target.userId, slot);
      throw error;
    }
  }

  start(opened: OpenedStream, out: ServerResponse): void {
    opened.stream.start(out, opened.first, opened.finishedAt);
  }

  read(target: StreamTarget, after: number | undefined): Promise<RunEventsResponse> {
    return this.services.request(
      RunsPatterns.ListRunEvents,
      { user_id: target.userId, agent_id: target.agentId, run_id: target.runId, limit: STREAM_PAGE, ...(after === undefined ? {} : { after_index: after }) },
      target.requestId,
    );
  }

  closed(stream: LiveStream, why: string): void {
    const slot = this.open.get(stream);
    this.hub.leave(stream.target.runId, stream);
    if (slot === undefined) return;
    this.open.delete(stream);
    this.slots.release(stream.target.userId, slot);
    const { owner, target } = stream;
    if (owner.keyId) remove(this.byKey, owner.keyId, stream);
    if (owner.sessionId) remove(this.bySession, owner.sessionId, stream);
    remove(this.byAgent, `${target.userId}:${target.agentId}`, stream);
    this.logger.debug({ req_id: target.requestId, run_id: target.runId, why }, 'run event stream closed');
  }

  private register(stream: LiveStream, slot: string): void {
    this.open.set(stream, slot);
    const { owner, target } = stream;
    if (owner.keyId) add(this.byKey, owner.keyId, stream);
    if (owner.sessionId) add(this.bySession, owner.sessionId, stream);
    add(this.byAgent, `${target.userId}:${target.agentId}`, stream);
  }

  private closeAll(streams: Set<LiveStream> | undefined, why: string): void {
    for (const stream of [...(streams ?? [])]) stream.close(why);
  }

  /** Asks agents-service once per distinct credential whether it still holds; ends the streams of those that do not. */
  private async verifyOwners(streams: LiveStream[]): Promise<void> {
    const byCredential = new Map<string, LiveStream[]>();
    for (const stream of streams) {
      const credential = stream.owner.keyHash ? `key:${stream.owner.keyHash}` : `session:${stream.owner.sessionTokenHash}`;
      byCredential.set(credential, [...(byCredential.get(credential) ?? []), stream]);
    }
    await Promise.all(
      [...byCredential].map(async ([credential, holders]) => {
        const valid = await this.stillValid(credential, holders[0].target.requestId).catch(() => false);
        if (!valid) this.closeAll(new Set(holders), 'credential no longer valid');
      }),
    );
  }

  private async stillValid(credential: string, requestId: string): Promise<boolean> {
    const [kind, hash] = [credential.slice(0, credential.indexOf(':')), credential.slice(credential.indexOf(':') + 1)];
    if (kind === 'key') return this.keys.stillValid(hash, requestId);
    const session = await this.services.request(AgentsPatterns.VerifyConsoleSession, { session_token_hash: hash }, requestId);
    return session !== null;
  }

  /** One request per 500 open streams: where their runs stand; a stream behind reads what it missed. */
  private async check(): Promise<void> {
    if (this.checking || this.open.size === 0) return;
    this.checking = true;
    try {
      const streams = [...this.open.keys()];
      for (let i = 0; i < streams.length; i += RUN_STREAM_HEADS_MAX) {
        const batch = streams.slice(i, i + RUN_STREAM_HEADS_MAX);
        const { runs } = await this.services.request(RunsPatterns.RunStreamHeads, {
          runs: batch.map((s) => ({ user_id: s.target.userId, agent_id: s.target.agentId, run_id: s.target.runId })),
        });
        const heads = new Map(runs.map((head) => [head.run_id, head]));
        for (const stream of batch) stream.checked(heads.get(stream.target.runId));
      }
    } catch (error) {
      this.logger.warn(`run event streams: the periodic check failed: ${(error as Error).message}`);
    } finally {
      this.checking = false;
    }
  }
}

function parseLastEventId(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    const message = 'Last-Event-ID must be the index of an event this stream sent';
    throw new ValidationFailedError(message, [{ field: 'Last-Event-ID', message }]);
  }
  return Number(value);
}

function add(index: Map<string, Set<LiveStream>>, key: string, stream: LiveStream): void {
  const streams = index.get(key) ?? new Set<LiveStream>();
  streams.add(stream);
  index.set(key, streams);
}

function remove(index: Map<string, Set<LiveStream>>, key: string, stream: LiveStream): void {
  const streams = index.get(key);
  streams?.delete(stream);
  if (streams?.size === 0) index.delete(key);
}
