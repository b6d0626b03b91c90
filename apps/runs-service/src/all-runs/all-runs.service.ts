import { Injectable } from '@nestjs/common';
import { AgentsPatterns, AllRunsListResponse, ListAllRunsMessage } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RunList } from '../run-list/run-list';
import { toRunListResponse } from '../runs/run.mapper';

/**
 * GET /v1/runs: the caller's runs across their agents. agents-service, the authority on agents, names
 * the live ones with their generations, so a deleted agent's runs never appear, even before its
 * asynchronous cleanup has deleted them.
 */
@Injectable()
export class AllRunsService {
  constructor(
    private readonly services: ServiceClient,
    private readonly runList: RunList,
  ) {}

  async list(message: ListAllRunsMessage): Promise<AllRunsListResponse> {
    const { agents } = await this.services.request(AgentsPatterns.ListLiveAgents, {
      user_id: message.user_id,
      workspace_id: message.filter_workspace_id,
      agent_id: message.filter_agent_id,
    });
    const found = await this.runList.readAcrossAgents(message.user_id, agents, message);
    return { ...toRunListResponse(found), total_runs_is_estimate: found.totalIsEstimate };
  }
}
