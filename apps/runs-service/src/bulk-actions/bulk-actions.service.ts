import { Inject, Injectable } from '@nestjs/common';
import {
  AgentsPatterns,
  BULK_ACTION_LIST_DEFAULT_PAGE_SIZE,
  BulkActionListResponse,
  BulkActionRefMessage,
  BulkActionResponse,
  BulkActionRunListResponse,
  CreateBulkActionMessage,
  ListBulkActionRunsMessage,
  ListBulkActionsMessage,
  ListRunsQuery,
} from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ConflictError, ResourceNotFoundError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { RunListStore } from '../run-list/run-list.store';
import { BulkActionLimits, creationRefusal, tooManyRunsError } from './bulk-action-limits';
import { isActive, toBulkActionDto, toBulkActionRunDto } from './bulk-action-row';
import { BulkActionStore } from './bulk-action.store';

export const BULK_ACTION_LIMITS = Symbol('BULK_ACTION_LIMITS');

/**
 * POST/GET /v1/bulk-actions and abort: an action's runs are resolved once, when it is created, from
 * the caller's live agents (as GET /v1/runs lists them); bulk-action-runner.ts carries it out.
 */
@Injectable()
export class BulkActionsService {
  constructor(
    private readonly store: BulkActionStore,
    private readonly runList: RunListStore,
    private readonly services: ServiceClient,
    @Inject(BULK_ACTION_LIMITS) private readonly limits: BulkActionLimits,
  ) {}

  async create(message: CreateBulkActionMessage): Promise<BulkActionResponse> {
    const filter = message.filter ?? {};
    const { agents } = await this.services.request(AgentsPatterns.ListLiveAgents, {
      user_id: message.user_id,
      workspace_id: filter.filter_workspace_id,
      agent_id: filter.filter_agent_id,
    });
    const runs = this.runList.matchingRunsQuery(message.user_id, agents, filter as ListRunsQuery);
    const selected = message.run_ids === undefined ? runs : onlyIds(runs, message.run_ids);
    const { row } = await this.store.create(
      {
        userId: message.user_id,
        action: message.action,
        filter: message.filter === undefined ? null : { ...message.filter },
        instructions: message.action === 'replay' ? (message.instructions ?? 'original') : null,
        idempotencyKey: message.idempotency_key ?? null,
        runs: agents.length === 0 ? NO_RUNS : selected,
      },
      this.limits.maxRuns,
      (activity) => creationRefusal(this.limits, activity, new Date()),
      () => tooManyRunsError(this.limits),
    );
    return { bulk_action: toBulkActionDto(row) };
  }

  async get(message: BulkActionRefMessage): Promise<BulkActionResponse> {
    return { bulk_action: toBulkActionDto(await this.find(message)) };
  }

  async list(message: ListBulkActionsMessage): Promise<BulkActionListResponse> {
    const { page, pageSize, offset } = pageOf(message);
    const { rows, total } = await this.store.list(message.user_id, offset, pageSize);
    return { bulk_actions: rows.map(toBulkActionDto), total, page, page_size: pageSize };
  }

  /** The action's runs, as `matched` counts them, with what happened to each. */
  async runs(message: ListBulkActionRunsMessage): Promise<BulkActionRunListResponse> {
    const action = await this.find(message);
    const { page, pageSize, offset } = pageOf(message);
    const rows = await this.store.runs(action.id, offset, pageSize);
    return { runs: rows.map(toBulkActionRunDto), total: Number(action.matched), page, page_size: pageSize };
  }

  /** Stops an active action between runs: the runs not yet reached stay as they are. */
  async abort(message: BulkActionRefMessage): Promise<BulkActionResponse> {
    const action = await this.find(message);
    const aborted = isActive(action.status) ? await this.store.abort(message.user_id, action.id) : undefined;
    if (aborted) return { bulk_action: toBulkActionDto(aborted) };
    // Finished before (or while) we asked: the status it finished with.
    const finished = await this.find(message);
    throw new ConflictError(`Bulk action ${action.id} has already finished (${finished.status}): there is nothing to abort`);
  }

  private async find(message: BulkActionRefMessage) {
    const row = isUUID(message.bulk_action_id) ? await this.store.find(message.user_id, message.bulk_action_id) : undefined;
    if (!row) throw new ResourceNotFoundError('Bulk action', message.bulk_action_id);
    return row;
  }
}

/** `page` is 1-based (0 counts as 1), `page_size` 0 means the default. */
function pageOf(query: { page?: number; page_size?: number }): { page: number; pageSize: number; offset: number } {
  const page = Math.max(query.page ?? 1, 1);
  const pageSize = query.page_size || BULK_ACTION_LIST_DEFAULT_PAGE_SIZE;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

const NO_RUNS = { sql: 'SELECT NULL::uuid AS id, NULL::uuid AS agent_id WHERE false', parameters: [] };

/** The runs among `runIds` that the statement selects: the caller's runs of live agents only. */
function onlyIds(runs: { sql: string; parameters: unknown[] }, runIds: string[]): { sql: string; parameters: unknown[] } {
  const n = runs.parameters.length + 1;
  return { sql: `SELECT m.id, m.agent_id FROM (${runs.sql}) m WHERE m.id = ANY($${n}::uuid[])`, parameters: [...runs.parameters, [...new Set(runIds)]] };
}
