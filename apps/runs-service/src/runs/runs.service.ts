import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AgentContext,
  AgentsPatterns,
  ListRunsMessage,
  RUN_EVENTS_DEFAULT_LIMIT,
  RUN_LIST_DEFAULT_PAGE_SIZE,
  RunDto,
  RunEventsMessage,
  RunEventsResponse,
  RunListResponse,
  StartRunMessage,
  SuccessResponse,
} from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ConflictError, ResourceNotFoundError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { Brackets, DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { clientIdempotencyKey } from '../acceptance/idempotency-keys';
import { RunAcceptance } from '../acceptance/run-acceptance.service';
import { RunTrigger } from '../acceptance/run-trigger';
import { CancelSignals } from '../execution/cancel-signals';
import { RunRecorder } from '../execution/run-recorder';
import { stop } from '../execution/run-transition';
import { RunEventEntity } from './run-event.entity';
import { RunEntity } from './run.entity';
import { toRunDto, toRunEventItem, toRunSummary } from './run.mapper';
import { runListCountQuery, runModeOf } from './run-list-count';
import { RunListTotals } from './run-list-totals';
import { totalFromPage } from './total-from-page';

const API_TRIGGER: RunTrigger = { runKind: 'api', scheduleAgentId: null };

@Injectable()
export class RunsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly services: ServiceClient,
    private readonly acceptance: RunAcceptance,
    private readonly recorder: RunRecorder,
    private readonly cancels: CancelSignals,
    private readonly runListTotals: RunListTotals,
  ) {}

  /**
   * Accepts a run through the one acceptance path (acceptance/run-acceptance.service.ts).
   * The same Idempotency-Key (per user, 24 hours) answers the first request's run.
   */
  async start(message: StartRunMessage): Promise<RunDto> {
    const [outcome] = await this.acceptance.accept([
      {
        userId: message.user_id,
        agentId: message.agent_id,
        idempotencyKey: message.idempotency_key === undefined ? null : clientIdempotencyKey(message.idempotency_key),
        runMode: message.run_mode ?? 'run',
        goal: message.user_message ?? null,
        trigger: API_TRIGGER,
        skipDeployCheck: message.skip_deploy_check ?? false,
      },
    ]);
    if ('refusal' in outcome) throw outcome.refusal;
    const run = await this.dataSource.manager.findOneBy(RunEntity, { id: outcome.runId });
    if (!run) throw new ConflictError('This Idempotency-Key was already used for another request within the last 24 hours');
    return toRunDto(run);
  }

  /** Newest first; `page` is 1-based (0 counts as 1), `page_size` 0 means the default. */
  async list(message: ListRunsMessage): Promise<RunListResponse> {
    await this.agentContext(message.user_id, message.agent_id);
    const page = Math.max(message.page ?? 1, 1);
    const pageSize = message.page_size || RUN_LIST_DEFAULT_PAGE_SIZE;
    const offset = (page - 1) * pageSize;
    const runs = await this.filtered(message)
      .orderBy('r.started_at', 'DESC')
      .addOrderBy('r.run_number', 'DESC')
      .offset(offset)
      .limit(pageSize)
      .getMany();
    const total = totalFromPage(offset, pageSize, runs.length) ?? (await this.count(message));
    return {
      runs: runs.map(toRunDto),
      total_runs: total,
      page,
      page_size: pageSize,
      all_run_summaries: runs.map(toRunSummary),
    };
  }

  /**
   * From run_list_counts when the filters allow; otherwise count(*) of the
   * runs (not TypeORM's getCount, whose COUNT(DISTINCT id) sorts every matching
   * id), remembered until the agent's runs change (RunListTotals).
   */
  private async count(message: ListRunsMessage): Promise<number> {
    const fromCounts = runListCountQuery(message);
    if (!fromCounts) return this.runListTotals.total(message, this.filtered(message));
    const [row] = await this.dataSource.query(fromCounts.sql, fromCounts.parameters);
    return Number(row?.total ?? 0);
  }

  async get(userId: string, agentId: string, runId: string): Promise<RunDto> {
    return toRunDto(await this.find(this.dataSource.manager, userId, agentId, runId));
  }

  /** In index order; `after_index` is exclusive, `limit` 0 or absent means the default. */
  async events(message: RunEventsMessage): Promise<RunEventsResponse> {
    const run = await this.find(this.dataSource.manager, message.user_id, message.agent_id, message.run_id);
    const query = this.dataSource.manager
      .createQueryBuilder(RunEventEntity, 'e')
      .where('e.run_id = :runId', { runId: run.id })
      .orderBy('e.event_index', 'ASC')
      .limit(message.limit || RUN_EVENTS_DEFAULT_LIMIT);
    if (message.after_index !== undefined) query.andWhere('e.event_index > :after', { after: message.after_index });
    const events = await query.getMany();
    return { events: events.map(toRunEventItem), total_count: Number(run.eventCount) };
  }

  /** Stops a running run (wherever it executes); a finished run is left as it is, which is not an error. */
  async cancel(userId: string, agentId: string, runId: string, reason: string | null): Promise<SuccessResponse> {
    const run = await this.find(this.dataSource.manager, userId, agentId, runId);
    const result = await this.recorder.apply(run.id, (state) => stop(state, reason));
    await this.cancels.signal(run.id);
    return result === 'ignored'
      ? { success: true, error: `Run ${run.id} had already finished (${run.status}); nothing to cancel` }
      : { success: true, error: null };
  }

  /** Deletes a run with its events, cancelling it first if it is still running. */
  async delete(userId: string, agentId: string, runId: string): Promise<void> {
    const run = await this.find(this.dataSource.manager, userId, agentId, runId);
    if (!run.isFinished) await this.cancel(userId, agentId, runId, 'run deleted');
    await this.dataSource.manager.delete(RunEntity, { id: run.id });
  }

  private filtered(message: ListRunsMessage): SelectQueryBuilder<RunEntity> {
    const q = this.dataSource.manager
      .createQueryBuilder(RunEntity, 'r')
      .where('r.agent_id = :agentId AND r.user_id = :userId', { agentId: message.agent_id, userId: message.user_id });
    if (message.filter_status === 'finished') q.andWhere('r.is_finished');
    else if (message.filter_status) q.andWhere('r.status = :status', { status: message.filter_status });
    if (message.filter_run_id !== undefined) {
      if (!isUUID(message.filter_run_id)) q.andWhere('false');
      else q.andWhere('r.id = :runId', { runId: message.filter_run_id });
    }
    if (message.filter_started_after) q.andWhere('r.started_at >= :after', { after: message.filter_started_after });
    if (message.filter_started_before) q.andWhere('r.started_at <= :before', { before: message.filter_started_before });
    if (message.filter_policy_type) q.andWhere('r.policy_type = :policyType', { policyType: message.filter_policy_type });
    if (message.filter_trigger_kind) q.andWhere('r.trigger_kind = :triggerKind', { triggerKind: message.filter_trigger_kind });
    if (message.filter_policy_group) q.andWhere('r.run_mode = :mode', { mode: runModeOf(message.filter_policy_group) });
    if (message.filter_user_email) q.andWhere('lower(r.user_email) = lower(:email)', { email: message.filter_user_email });
    if (message.filter_goal) {
      q.andWhere(
        new Brackets((b) => b.where(`r.goal ILIKE :goal ESCAPE '\\'`, { goal: `%${escapeLike(message.filter_goal!)}%` })),
      );
    }
    return q;
  }

  private async find(manager: EntityManager, userId: string, agentId: string, runId: string): Promise<RunEntity> {
    const run =
      isUUID(runId) && isUUID(agentId) ? await manager.findOneBy(RunEntity, { id: runId, agentId, userId }) : null;
    if (!run) throw new ResourceNotFoundError('Run', runId);
    return run;
  }

  private agentContext(userId: string, agentId: string): Promise<AgentContext> {
    return this.services.request<AgentContext>(AgentsPatterns.GetAgentForRun, { user_id: userId, agent_id: agentId });
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
