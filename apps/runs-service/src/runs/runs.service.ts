import { Injectable } from '@nestjs/common';
import {
  OwnedAgent,
  AgentsPatterns,
  ListRunsMessage,
  RUN_EVENTS_DEFAULT_LIMIT,
  RunDto,
  RunEventsMessage,
  RunEventsResponse,
  RunListResponse,
  RunStreamHeadsMessage,
  RunStreamHeadsResponse,
  SuccessResponse,
} from '@aas/contracts';
import { ServiceClient, Transactions } from '@aas/platform';
import { ResourceNotFoundError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { RunEntity } from '../database/run.entity';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { RunList } from '../run-list/run-list';
import { toRunDto, toRunEventItem, toRunListResponse } from './run.mapper';
import { RunStore } from './run.store';

@Injectable()
export class RunsService {
  constructor(
    private readonly runs: RunStore,
    private readonly runList: RunList,
    private readonly services: ServiceClient,
    private readonly lifecycle: RunLifecycle,
    private readonly transactions: Transactions,
  ) {}

  /** Newest first; `page` is 1-based (0 counts as 1), `page_size` 0 means the default. */
  async list(message: ListRunsMessage): Promise<RunListResponse> {
    const agent = await this.ownedAgent(message.user_id, message.agent_id);
    await this.takeOver(agent, message.user_id);
    return toRunListResponse(await this.runList.read(message));
  }

  async get(userId: string, agentId: string, runId: string): Promise<RunDto> {
    return toRunDto(await this.find(userId, agentId, runId));
  }

  /** In index order; `after_index` is exclusive, `limit` 0 or absent means the default. */
  async events(message: RunEventsMessage): Promise<RunEventsResponse> {
    const run = await this.find(message.user_id, message.agent_id, message.run_id);
    const events = await this.runs.events(run.id, message.after_index, message.limit || RUN_EVENTS_DEFAULT_LIMIT);
    return { events: events.map(toRunEventItem), total_count: Number(run.eventCount) };
  }

  /** Stops a running run (wherever it executes); a finished run is left as it is, which is not an error. */
  async cancel(userId: string, agentId: string, runId: string, reason: string | null): Promise<SuccessResponse> {
    const run = await this.find(userId, agentId, runId);
    return this.stop(run, reason);
  }

  /** Deletes a run with its events, cancelling it first if it is still running; its open event streams end. */
  async delete(userId: string, agentId: string, runId: string): Promise<void> {
    const run = await this.find(userId, agentId, runId);
    if (!run.isFinished) await this.stop(run, 'run deleted');
    await this.transactions.run(async (tx) => {
      await this.runs.delete(tx, run.id);
      this.lifecycle.deletedIn(tx, run.id);
    });
  }

  /**
   * Where the runs of a gateway's open event streams stand, in one request to agents-service and one
   * query: a run that is gone for its caller (deleted, its agent deleted or another generation) is left out.
   */
  async streamHeads(message: RunStreamHeadsMessage): Promise<RunStreamHeadsResponse> {
    const refs = message.runs.filter((r) => isUUID(r.run_id) && isUUID(r.agent_id));
    if (refs.length === 0) return { runs: [] };
    const owners = new Map(refs.map((r) => [`${r.agent_id}:${r.user_id}`, { agent_id: r.agent_id, user_id: r.user_id }]));
    const [{ agents }, rows] = await Promise.all([
      this.services.request(AgentsPatterns.GetAgentsForRunStarts, { agents: [...owners.values()] }),
      this.runs.findByIds(refs.map((r) => r.run_id)),
    ]);
    const generations = new Map(agents.map((a) => [`${a.agent_id}:${a.user_id}`, a.generation]));
    const asked = new Map(refs.map((r) => [r.run_id, r]));
    const live = rows.filter((run) => {
      const ref = asked.get(run.id);
      const generation = generations.get(`${run.agentId}:${run.userId}`);
      if (!ref || ref.agent_id !== run.agentId || ref.user_id !== run.userId || generation === undefined) return false;
      return run.agentGeneration === null || Number(run.agentGeneration) === generation;
    });
    return { runs: live.map((run) => ({ run_id: run.id, event_count: Number(run.eventCount), is_finished: run.isFinished })) };
  }

  private async stop(run: RunEntity, reason: string | null): Promise<SuccessResponse> {
    const result = await this.lifecycle.stop(run.id, reason);
    return result === 'ignored'
      ? { success: true, error: `Run ${run.id} had already finished (${run.status}); nothing to cancel` }
      : { success: true, error: null };
  }

  /**
   * A deleted agent's runs may still be here (its cleanup is asynchronous) when a new agent takes its id:
   * they are deleted before the new agent's list is read or counted (database/agent-generations.ts).
   */
  private async takeOver(agent: OwnedAgent, userId: string): Promise<void> {
    const held = await this.runs.heldGeneration(agent.agent_id);
    if (held === undefined || held === agent.generation) return;
    if (held > agent.generation) throw new ResourceNotFoundError('Agent', agent.agent_id);
    const claim = { agentId: agent.agent_id, userId, generation: agent.generation };
    const { refused } = await this.transactions.run(async (tx) => {
      const outcome = await this.runs.claimGeneration(tx, claim);
      this.lifecycle.removedIn(tx, outcome.stopped, [userId]);
      return outcome;
    });
    if (refused.size > 0) throw new ResourceNotFoundError('Agent', agent.agent_id);
  }

  /**
   * The caller's run of the caller's agent. agents-service, the authority on agents, is asked at the same
   * time as the run is read: a deleted agent's runs are a 404 at once, and so are runs of an earlier agent
   * that had the same id (another generation).
   */
  async find(userId: string, agentId: string, runId: string): Promise<RunEntity> {
    if (!isUUID(runId) || !isUUID(agentId)) throw new ResourceNotFoundError('Run', runId);
    const [agent, run] = await Promise.all([
      this.ownedAgent(userId, agentId),
      this.runs.findOwned(runId, agentId, userId),
    ]);
    if (!run || (run.agentGeneration !== null && Number(run.agentGeneration) !== agent.generation)) {
      throw new ResourceNotFoundError('Run', runId);
    }
    return run;
  }

  private ownedAgent(userId: string, agentId: string): Promise<OwnedAgent> {
    return this.services.request(AgentsPatterns.GetOwnedAgent, { user_id: userId, agent_id: agentId });
  }
}
