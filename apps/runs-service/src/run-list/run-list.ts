import { Injectable } from '@nestjs/common';
import { ListRunsMessage, ListRunsQuery, LiveAgent, RUN_LIST_DEFAULT_PAGE_SIZE, RUN_LIST_EXACT_TOTAL_MAX } from '@aas/contracts';
import { RunEntity } from '../database/run.entity';
import { RunListStore } from './run-list.store';
import { totalFromPage } from './total-from-page';

/** One page of a run list with the list's total. */
export interface RunListPage {
  runs: RunEntity[];
  total: number;
  page: number;
  pageSize: number;
}

/** A page of runs across agents: the total may be an estimate beyond RUN_LIST_EXACT_TOTAL_MAX. */
export interface RunsAcrossAgentsPage extends RunListPage {
  totalIsEstimate: boolean;
}

/** Reads a page of an agent's runs; the total is counted only when the page does not prove it. */
@Injectable()
export class RunList {
  constructor(private readonly store: RunListStore) {}

  /** Newest first; `page` is 1-based (0 counts as 1), `page_size` 0 means the default. */
  async read(message: ListRunsMessage): Promise<RunListPage> {
    const { page, pageSize, offset } = pageOf(message);
    const runs = await this.store.page(message, offset, pageSize);
    const total = totalFromPage(offset, pageSize, runs.length) ?? (await this.store.count(message));
    return { runs, total, page, pageSize };
  }

  /** The same across `agents` of one user (GET /v1/runs); newest first, ties broken by run number and id. */
  async readAcrossAgents(userId: string, agents: LiveAgent[], query: ListRunsQuery): Promise<RunsAcrossAgentsPage> {
    const { page, pageSize, offset } = pageOf(query);
    if (agents.length === 0) return { runs: [], total: 0, totalIsEstimate: false, page, pageSize };
    const runs = await this.store.pageAcrossAgents(userId, agents, query, offset, pageSize);
    const proven = totalFromPage(offset, pageSize, runs.length);
    const { total, estimate } =
      proven === undefined ? await this.store.countAcrossAgents(userId, agents, query, RUN_LIST_EXACT_TOTAL_MAX) : { total: proven, estimate: false };
    return { runs, total, totalIsEstimate: estimate, page, pageSize };
  }
}

/** `page` is 1-based (0 counts as 1), `page_size` 0 means the default. */
function pageOf(query: ListRunsQuery): { page: number; pageSize: number; offset: number } {
  const page = Math.max(query.page ?? 1, 1);
  const pageSize = query.page_size || RUN_LIST_DEFAULT_PAGE_SIZE;
  return { page, pageSize, offset: (page - 1) * pageSize };
}
