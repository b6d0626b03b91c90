import { Injectable } from '@nestjs/common';
import { ListRunsMessage, RUN_LIST_DEFAULT_PAGE_SIZE } from '@aas/contracts';
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

/** Reads a page of an agent's runs; the total is counted only when the page does not prove it. */
@Injectable()
export class RunList {
  constructor(private readonly store: RunListStore) {}

  /** Newest first; `page` is 1-based (0 counts as 1), `page_size` 0 means the default. */
  async read(message: ListRunsMessage): Promise<RunListPage> {
    const page = Math.max(message.page ?? 1, 1);
    const pageSize = message.page_size || RUN_LIST_DEFAULT_PAGE_SIZE;
    const offset = (page - 1) * pageSize;
    const runs = await this.store.page(message, offset, pageSize);
    const total = totalFromPage(offset, pageSize, runs.length) ?? (await this.store.count(message));
    return { runs, total, page, pageSize };
  }
}
