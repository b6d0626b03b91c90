import { Injectable } from '@nestjs/common';
import { AgentStartContext, AgentsPatterns } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { ConflictError, DomainError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { AcceptanceTransaction, ClaimedKey, RunAcceptanceStore, ownedKey, scheduledForKey } from './run-acceptance.store';
import { RunStartOutcome, RunStartRequest } from './run-start-request';
import { RunStartLimits } from './run-start-limits';
import { BudgetGuard } from '../budgets/budget-guard';
import { newRun } from './new-run';

/** A request that may start a run, with the id its run gets if its key is new. */
interface Accepted {
  request: RunStartRequest;
  agent: AgentStartContext;
  runId: string;
}

/**
 * The one way a run is accepted, whatever starts it (the API, a schedule's fire,
 * a backfill, a trigger): one request to agents-service for every agent of the
 * batch, then one transaction that claims the idempotency keys, refuses the new runs
 * over a spent budget (budgets/) or the start limits (runs waiting per user, runs per chain of triggers: run-start-limits.ts,
 * counted under locks in the same transaction, so a retry whose key is taken is never counted
 * again), numbers the runs, stores them and admits what fits under the users' limits of executing
 * runs (through the lifecycle's admission: queued through the outbox), so an accepted run is never lost, and one
 * that does not fit yet waits in the database, where the admission finds it. A request
 * with a key already taken answers that key's run; each refusal is its request's
 * outcome only.
 */
@Injectable()
export class RunAcceptance {
  constructor(
    private readonly store: RunAcceptanceStore,
    private readonly services: ServiceClient,
    private readonly lifecycle: RunLifecycle,
    private readonly limits: RunStartLimits,
    private readonly budgets: BudgetGuard,
  ) {}

  async accept(requests: RunStartRequest[]): Promise<RunStartOutcome[]> {
    if (requests.length === 0) return [];
    // The agents are asked for while a connection is awaited: both waits grow with load, so they overlap.
    // Awaiting both together fails the call as soon as the request fails (the transaction then rolls back).
    const agents = this.agentsOf(requests);
    const [, outcomes] = await Promise.all([agents, this.store.inTransaction((tx) => this.acceptIn(tx, requests, agents))]);
    return outcomes;
  }

  private async agentsOf(requests: RunStartRequest[]): Promise<Map<string, AgentStartContext>> {
    // A path id that is no uuid names no agent: its request is refused as not found, without asking.
    const unique = new Map(requests.filter((r) => isUUID(r.agentId)).map((r) => [r.agentId, { user_id: r.userId, agent_id: r.agentId }]));
    if (unique.size === 0) return new Map();
    const { agents } = await this.services.request(AgentsPatterns.GetAgentsForRunStarts, {
      agents: [...unique.values()],
    });
    return new Map(agents.map((a) => [a.agent_id, a]));
  }

  private async acceptIn(
    tx: AcceptanceTransaction,
    requests: RunStartRequest[],
    agentsRequest: Promise<Map<string, AgentStartContext>>,
  ): Promise<RunStartOutcome[]> {
    const agents = await agentsRequest;
    const accepted = new Map<RunStartRequest, Accepted>();
    const refused = new Map<RunStartRequest, DomainError>();
    const byKey = new Map<string, Accepted>();
    /** Requests whose user's key an earlier request of the batch holds for another agent: answered once the key's owner is known. */
    const rivals = new Map<RunStartRequest, string>();
    for (const request of requests) {
      const agent = agents.get(request.agentId);
      const refusal = refusalOf(request, agent);
      if (refusal) {
        refused.set(request, refusal);
        continue;
      }
      // The same key of one user twice in one batch is one run: both requests answer it.
      const key = keyOf(request);
      const same = key === null ? undefined : byKey.get(key);
      if (same && same.agent.agent_id !== agent!.agent_id) {
        rivals.set(request, key!);
        continue;
      }
      const entry = same ?? { request, agent: agent!, runId: randomUUID() };
      accepted.set(request, entry);
      if (key !== null) byKey.set(key, entry);
    }
    const claims = [...accepted.values()].map((a) => ({ agentId: a.agent.agent_id, userId: a.request.userId, generation: a.agent.generation }));
    const generations = await tx.claimGenerations(claims);
    // Unfinished runs of a deleted agent whose id a new agent took: their workers stop once this commits.
    this.lifecycle.removedIn(tx.tx, generations.stopped, claims.map((c) => c.userId));
    for (const [request, entry] of accepted) {
      if (!generations.refused.has(entry.agent.agent_id)) continue;
      accepted.delete(request);
      refused.set(request, new ResourceNotFoundError('Agent', request.agentId));
      const key = keyOf(request);
      if (key !== null) byKey.delete(key);
    }
    const made = await this.alreadyScheduled(tx, [...byKey.values()]);
    const earlier = await this.claimKeys(tx, [...byKey.values()].filter((a) => !made.has(keyOf(a.request)!)));
    for (const [key, claimed] of made) earlier.set(key, claimed);
    const claimed = [...new Set(accepted.values())].filter((a) => a.request.idempotencyKey === null || !earlier.has(keyOf(a.request)!));
    const overLimits = await this.overLimits(tx, claimed);
    const fresh = claimed.filter((a) => !overLimits.has(a));
    await this.storeRuns(tx, fresh);
    // Last: the users' admission locks (taken here, or already for the start limits) are held to the commit.
    if (fresh.length > 0) await this.lifecycle.admitIn(tx.tx, fresh.map((a) => a.request.userId));
    return requests.map((request): RunStartOutcome => {
      const rival = rivals.get(request);
      if (rival !== undefined) return rivalOutcome(request, earlier.get(rival));
      const refusal = refused.get(request) ?? overLimits.get(accepted.get(request)!);
      if (refusal) return { refusal };
      const entry = accepted.get(request)!;
      const key = keyOf(entry.request);
      const taken = key === null ? undefined : earlier.get(key);
      if (!taken) return { runId: entry.runId, created: true };
      if (taken.agentId !== entry.agent.agent_id) return { refusal: keyOfAnotherAgent() };
      return { runId: taken.runId, created: false };
    });
  }

  /**
   * The new runs over a budget or a start limit, each with its refusal; their keys are given back. The users'
   * admission locks are taken here when the waiting runs are limited (and held to the commit): from
   * here on this transaction has each user's turn, as the admission at its end needs anyway.
   */
  private async overLimits(tx: AcceptanceTransaction, claimed: Accepted[]): Promise<Map<Accepted, DomainError>> {
    // A spent budget refuses first (docs/budgets.md), so that a refused run takes no room under the other limits.
    const overBudget = await this.overBudget(tx, claimed);
    const within = claimed.filter((a) => !overBudget.has(a));
    const refused = new Map<Accepted, DomainError>([...overBudget, ...(await this.overStartLimits(tx, within))]);
    const keyed = [...refused.keys()].filter((a) => a.request.idempotencyKey !== null);
    if (keyed.length > 0) await tx.releaseKeys(
      keyed.map((a) => a.request.userId),
      keyed.map((a) => a.request.idempotencyKey!),
    );
    return refused;
  }

  /** The new runs whose agent or user has spent a budget of the period: one query for the batch. */
  private async overBudget(tx: AcceptanceTransaction, claimed: Accepted[]): Promise<Map<Accepted, DomainError>> {
    const refusals = await this.budgets.refusalsIn(tx.tx, claimed.map((a) => ({ userId: a.request.userId, agentId: a.agent.agent_id })));
    return new Map(claimed.flatMap((a, i) => (refusals[i] ? [[a, refusals[i]] as const] : [])));
  }

  private async overStartLimits(tx: AcceptanceTransaction, claimed: Accepted[]): Promise<Map<Accepted, DomainError>> {
    const { waitingPerUser, runsPerChain } = this.limits;
    if (claimed.length === 0 || (waitingPerUser === null && runsPerChain === null)) return new Map();
    const chained = claimed.flatMap((a) => (a.request.trigger.chainRootId === undefined ? [] : [a.request.trigger.chainRootId]));
    const waiting = waitingPerUser === null ? new Map<string, number>() : await this.lifecycle.waitingIn(tx.tx, claimed.map((a) => a.request.userId), waitingPerUser);
    const started = runsPerChain === null ? new Map<string, number>() : await tx.chainRunsStarted(chained);
    const verdict = this.limits.judge(claimed, (a) => ({ userId: a.request.userId, chainRootId: a.request.trigger.chainRootId }), waiting, started);
    await tx.addChainRuns(verdict.chainRuns);
    return verdict.refused;
  }

  /**
   * Keyed requests for a due time whose run exists already (its key may have been purged since):
   * answered with that run, by owned key.
   */
  private async alreadyScheduled(tx: AcceptanceTransaction, keyed: Accepted[]): Promise<Map<string, ClaimedKey>> {
    const due = keyed.filter((a) => a.request.dueAt !== undefined);
    const runs = await tx.findScheduledRuns(due.map((a) => ({ agentId: a.agent.agent_id, dueAt: a.request.dueAt! })));
    const made = new Map<string, ClaimedKey>();
    for (const a of due) {
      const runId = runs.get(scheduledForKey(a.agent.agent_id, a.request.dueAt!));
      if (runId) made.set(keyOf(a.request)!, { key: a.request.idempotencyKey!, agentId: a.agent.agent_id, runId });
    }
    return made;
  }

  private claimKeys(tx: AcceptanceTransaction, keyed: Accepted[]): Promise<Map<string, ClaimedKey>> {
    return tx.claimKeys(
      keyed.map((a) => a.request.userId),
      keyed.map((a) => ({ key: a.request.idempotencyKey!, agentId: a.agent.agent_id, runId: a.runId })),
    );
  }

  /** Numbers the new runs of each agent (in due-time order, then request order) and stores them. */
  private async storeRuns(tx: AcceptanceTransaction, accepted: Accepted[]): Promise<void> {
    const fresh = [...accepted].sort((a, b) => (a.request.dueAt?.getTime() ?? 0) - (b.request.dueAt?.getTime() ?? 0));
    const counts = new Map<string, number>();
    for (const a of fresh) counts.set(a.agent.agent_id, (counts.get(a.agent.agent_id) ?? 0) + 1);
    const next = await tx.takeRunNumbers(counts);
    const startedAt = new Date();
    const runs = fresh.map((a) => {
      const runNumber = next.get(a.agent.agent_id)!;
      next.set(a.agent.agent_id, runNumber + 1);
      return newRun({
        id: a.runId,
        agentId: a.agent.agent_id,
        agentGeneration: a.agent.generation,
        userId: a.request.userId,
        userEmail: a.agent.user_email,
        runNumber,
        runMode: a.request.runMode,
        goal: a.request.goal,
        trigger: a.request.trigger,
        startedAt,
        scheduledFor: a.request.dueAt ?? null,
        replay: a.request.replay,
      });
    });
    await tx.insertWaiting(runs);
  }
}

/** A request's idempotency key as its user owns it (ownedKey), or null without one. */
function keyOf(request: RunStartRequest): string | null {
  return request.idempotencyKey === null ? null : ownedKey(request.userId, request.idempotencyKey);
}

/** A key taken before this batch answers its run to a request of the same agent; otherwise the key is another agent's. */
function rivalOutcome(request: RunStartRequest, taken: ClaimedKey | undefined): RunStartOutcome {
  return taken?.agentId === request.agentId ? { runId: taken.runId, created: false } : { refusal: keyOfAnotherAgent() };
}

function keyOfAnotherAgent(): ConflictError {
  return new ConflictError('This idempotency key was already used for a run of another agent within the last 24 hours');
}

function refusalOf(request: RunStartRequest, agent: AgentStartContext | undefined): DomainError | undefined {
  if (!agent || agent.user_id !== request.userId) return new ResourceNotFoundError('Agent', request.agentId);
  // A fire of a deleted agent's schedule, while a new agent has its id: that agent never ran it.
  if (request.agentGeneration !== undefined && request.agentGeneration !== agent.generation) {
    return new ResourceNotFoundError('Agent', request.agentId);
  }
  if (request.runMode === 'run' && agent.deployment_state !== 'deployed' && !request.skipDeployCheck) {
    return new ValidationFailedError('The agent is not deployed: complete a build run first (run_mode build)');
  }
  return undefined;
}
