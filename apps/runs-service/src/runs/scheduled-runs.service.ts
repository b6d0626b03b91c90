import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AgentStartContext,
  AgentStartContextsResponse,
  AgentsPatterns,
  EventNames,
  RunQueuedEvent,
  StartScheduledRunMessage,
} from '@aas/contracts';
import { OutboxRelay, ServiceClient, recordEvents } from '@aas/platform';
import { ConflictError, DomainError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { scheduleFireKey } from './idempotency-keys';
import { newRun } from './new-run';
import { RUN_ACCEPTANCE } from './run-acceptance-database';
import { RunEntity } from './run.entity';

/** A fire's run (made now, or by an earlier delivery of the same fire), or why it was refused. */
export type ScheduledStart = { fire: StartScheduledRunMessage; runId: string } | { fire: StartScheduledRunMessage; refusal: DomainError };

/** A fire that may start a run: its idempotency key, and the id its run gets if the key is new. */
interface AdmittedFire {
  key: string;
  fire: StartScheduledRunMessage;
  agent: AgentStartContext;
  runId: string;
}

/** Run id by idempotency key, or why the key cannot start this fire's run. */
type RunsByKey = Map<string, string | DomainError>;

/**
 * Starts the runs of many schedule fires with one request to agents-service and
 * one transaction (on connections of its own, see run-acceptance-database.ts),
 * so a hundred fires due at the same second cost about what one did. Each fire stays on its own: it is keyed `schedule:<agent>:<fire ms>`, so a
 * fire delivered twice (in one batch or two) makes one run, and a refusal (agent
 * gone, not deployed) is that fire's outcome only.
 */
@Injectable()
export class ScheduledRunsService {
  constructor(
    @InjectDataSource(RUN_ACCEPTANCE) private readonly dataSource: DataSource,
    private readonly services: ServiceClient,
    private readonly outbox: OutboxRelay,
  ) {}

  async start(fires: StartScheduledRunMessage[]): Promise<ScheduledStart[]> {
    // The agents are asked for while a connection is awaited: both waits grow with load, so they overlap.
    // Awaiting both together fails the call as soon as the request fails (the transaction then rolls back).
    const agents = this.agentsOf(fires);
    const [, { starts, created }] = await Promise.all([
      agents,
      this.dataSource.transaction((manager) => this.startIn(manager, fires, agents)),
    ]);
    if (created > 0) this.outbox.kick();
    return starts;
  }

  private async agentsOf(fires: StartScheduledRunMessage[]): Promise<Map<string, AgentStartContext>> {
    const unique = new Map(fires.map((f) => [f.agent_id, { user_id: f.user_id, agent_id: f.agent_id }]));
    const { agents } = await this.services.request<AgentStartContextsResponse>(AgentsPatterns.GetAgentsForRunStarts, {
      agents: [...unique.values()],
    });
    return new Map(agents.map((a) => [a.agent_id, a]));
  }

  /** Numbers, stores and queues (through the outbox) the runs of admitted fires whose key is new. */
  private async startIn(
    manager: EntityManager,
    fires: StartScheduledRunMessage[],
    agentsRequest: Promise<Map<string, AgentStartContext>>,
  ): Promise<{ starts: ScheduledStart[]; created: number }> {
    const agents = await agentsRequest;
    const refusals = new Map<StartScheduledRunMessage, DomainError>();
    const admitted = new Map<string, AdmittedFire>();
    for (const fire of fires) {
      const agent = agents.get(fire.agent_id);
      const refusal = refusalOf(fire, agent);
      if (refusal) refusals.set(fire, refusal);
      // The same fire twice in one batch is one admitted fire: both get its run.
      else admitted.set(idempotencyKey(fire), { key: idempotencyKey(fire), fire, agent: agent!, runId: randomUUID() });
    }
    const runsByKey = await claimKeys(manager, [...admitted.values()]);
    const fresh = [...admitted.values()].filter((f) => !runsByKey.has(f.key));
    const numbers = await takeRunNumbers(manager, fresh);
    const startedAt = new Date();
    const runs = fresh.map((f) =>
      newRun({
        id: f.runId,
        agentId: f.agent.agent_id,
        userId: f.fire.user_id,
        userEmail: f.agent.user_email,
        runNumber: numbers.get(f.key)!,
        runMode: 'run',
        goal: null,
        trigger: { runKind: 'schedule', scheduleAgentId: f.agent.agent_id },
        startedAt,
      }),
    );
    if (runs.length > 0) {
      await manager.createQueryBuilder().insert().into(RunEntity).values(runs).updateEntity(false).execute();
      await recordRunsQueued(manager, runs);
    }
    for (const f of fresh) runsByKey.set(f.key, f.runId);
    const starts = fires.map((fire): ScheduledStart => {
      const run = refusals.get(fire) ?? runsByKey.get(idempotencyKey(fire))!;
      return run instanceof DomainError ? { fire, refusal: run } : { fire, runId: run };
    });
    return { starts, created: runs.length };
  }
}

function idempotencyKey(fire: StartScheduledRunMessage): string {
  return scheduleFireKey(fire.agent_id, fire.fire_time);
}

function refusalOf(fire: StartScheduledRunMessage, agent: AgentStartContext | undefined): DomainError | undefined {
  if (!agent || agent.user_id !== fire.user_id) return new ResourceNotFoundError('Agent', fire.agent_id);
  if (agent.deployment_state !== 'deployed') {
    return new ValidationFailedError('The agent is not deployed: a scheduled run needs a deployed agent');
  }
  return undefined;
}

/**
 * Takes each fire's key, in key order so that two batches holding the same fires
 * wait for each other rather than deadlock; a key taken before answers with the
 * run it made. Schedule keys name a fire time, which never recurs; like the
 * API's keys they are purged after 24 hours (idempotency-key-purge.ts), long
 * after the last retry of their fire.
 */
async function claimKeys(manager: EntityManager, fires: AdmittedFire[]): Promise<RunsByKey> {
  if (fires.length === 0) return new Map();
  const sorted = [...fires].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const claimed: { key: string }[] = await manager.query(
    `INSERT INTO run_idempotency_keys (user_id, key, agent_id, run_id)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[])
     ON CONFLICT (user_id, key) DO NOTHING RETURNING key`,
    [sorted.map((f) => f.fire.user_id), sorted.map((f) => f.key), sorted.map((f) => f.agent.agent_id), sorted.map((f) => f.runId)],
  );
  const taken = new Set(claimed.map((row) => row.key));
  const retried = sorted.filter((f) => !taken.has(f.key));
  if (retried.length === 0) return new Map();
  const rows: { key: string; agent_id: string; run_id: string }[] = await manager.query(
    `SELECT key, agent_id, run_id FROM run_idempotency_keys
      WHERE (user_id, key) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
    [retried.map((f) => f.fire.user_id), retried.map((f) => f.key)],
  );
  const earlier = new Map(rows.map((row) => [row.key, row]));
  // The fire's own run, even if it has been deleted since: the fire happened and must not make another.
  return new Map(
    retried.map((f) => {
      const row = earlier.get(f.key);
      const run = row?.agent_id === f.agent.agent_id ? row.run_id : new ConflictError(`Idempotency key ${f.key} is taken by another request`);
      return [f.key, run];
    }),
  );
}

/** The next run number of each fire's agent; an agent's fires are numbered in fire-time order. */
async function takeRunNumbers(manager: EntityManager, fires: AdmittedFire[]): Promise<Map<string, number>> {
  const byAgent = new Map<string, AdmittedFire[]>();
  for (const f of fires) byAgent.set(f.agent.agent_id, [...(byAgent.get(f.agent.agent_id) ?? []), f]);
  if (byAgent.size === 0) return new Map();
  // Agent order, for the same reason as the keys: counter rows are locked until commit.
  const agentIds = [...byAgent.keys()].sort();
  const rows: { agent_id: string; last_run_number: number }[] = await manager.query(
    `INSERT INTO agent_run_counters (agent_id, last_run_number)
     SELECT * FROM unnest($1::uuid[], $2::int[])
     ON CONFLICT (agent_id) DO UPDATE SET last_run_number = agent_run_counters.last_run_number + EXCLUDED.last_run_number
     RETURNING agent_id, last_run_number`,
    [agentIds, agentIds.map((id) => byAgent.get(id)!.length)],
  );
  const numbers = new Map<string, number>();
  for (const row of rows) {
    const agentFires = byAgent.get(row.agent_id)!.sort((a, b) => Date.parse(a.fire.fire_time) - Date.parse(b.fire.fire_time));
    const first = row.last_run_number - agentFires.length + 1;
    agentFires.forEach((f, i) => numbers.set(f.key, first + i));
  }
  return numbers;
}

/** Each accepted run waits for a worker. */
async function recordRunsQueued(manager: EntityManager, runs: RunEntity[]): Promise<void> {
  await recordEvents(manager, EventNames.RunQueued, runs.map((run): RunQueuedEvent => ({ run_id: run.id })));
}
