import { RunStartRequest } from './run-start-request';

/** Whose agent a source starts, as every message names it. */
export interface RunOwner {
  user_id: string;
  agent_id: string;
}

/** What a source says of its start beyond the owner; left out: a run of the deployed agent, without a goal. */
export type RunSourceFields = Omit<RunStartRequest, 'userId' | 'agentId' | 'runMode' | 'goal' | 'skipDeployCheck'> &
  Partial<Pick<RunStartRequest, 'runMode' | 'goal' | 'skipDeployCheck'>>;

/** The one mapping every run source (api-run-start.ts, schedule-fire-start.ts, triggered-run-start.ts) goes through. */
export function runStart(owner: RunOwner, fields: RunSourceFields): RunStartRequest {
  return { userId: owner.user_id, agentId: owner.agent_id, runMode: 'run', goal: null, skipDeployCheck: false, ...fields };
}
