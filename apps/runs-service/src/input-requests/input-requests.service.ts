import { Injectable } from '@nestjs/common';
import {
  AgentsPatterns,
  AnswerInputRequestMessage,
  INPUT_ANSWER_MAX_BYTES,
  INPUT_REQUESTS_LISTED,
  INPUT_REQUESTS_PER_RUN_LISTED,
  InputAnswerer,
  InputRequestListResponse,
  InputRequestResponse,
  ListInputRequestsMessage,
  ListRunInputRequestsMessage,
  jsonValueFault,
} from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ConflictError, PayloadTooLargeError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { InputRequestClosedError } from '../lifecycle/run-record.store';
import { ClosedInputRequest, answer } from '../lifecycle/run-transition';
import { answerFaults } from './answer-schema';
import { toInputRequestDto } from './input-request.mapper';
import { InputRequestRow, InputRequestStore, RunOwner } from './input-request.store';

/** The answer API (docs/input-requests.md): the owner lists and answers the questions of their runs. */
@Injectable()
export class InputRequestsService {
  constructor(
    private readonly store: InputRequestStore,
    private readonly lifecycle: RunLifecycle,
    private readonly services: ServiceClient,
  ) {}

  async listForRun(message: ListRunInputRequestsMessage): Promise<InputRequestListResponse> {
    if (!isUUID(message.run_id) || !isUUID(message.agent_id)) throw new ResourceNotFoundError('Run', message.run_id);
    const [generation, run] = await Promise.all([this.ownedGeneration(message.user_id, message.agent_id), this.store.runOwner(message.run_id)]);
    if (!run || !isOwned(run, message.user_id, message.agent_id, generation)) throw new ResourceNotFoundError('Run', message.run_id);
    const rows = await this.store.listForRun(message.run_id, INPUT_REQUESTS_PER_RUN_LISTED);
    return { input_requests: rows.map(toInputRequestDto) };
  }

  async listForUser(message: ListInputRequestsMessage): Promise<InputRequestListResponse> {
    const { agents } = await this.services.request(AgentsPatterns.ListLiveAgents, { user_id: message.user_id });
    const live = agents.map((a) => ({ agentId: a.agent_id, generation: a.generation }));
    const rows = await this.store.listForUser(message.user_id, live, message.status, INPUT_REQUESTS_LISTED);
    return { input_requests: rows.map(toInputRequestDto) };
  }

  /**
   * Checks the answer against the request's schema, then closes the request and readmits its run in one
   * unit of work: of two answers at once, one is written and the other is a 409 (InputRequestClosedError).
   */
  async answer(message: AnswerInputRequestMessage): Promise<InputRequestResponse> {
    const row = await this.owned(message);
    if (row.status !== 'pending') throw new InputRequestClosedError(row.id);
    checkAnswer(row, message.answer);
    const answeredBy: InputAnswerer = { kind: 'user', user_id: message.user_id, api_key_id: message.api_key_id ?? null };
    const closed: ClosedInputRequest = { id: row.id, status: 'answered', answer: JSON.stringify(message.answer), answeredBy };
    const event = { input_answered: { request_id: row.id, input_id: row.inputId, answer: message.answer, answered_by: answeredBy } };
    const result = await this.lifecycle.recordForAdmission(row.runId, row.userId, (state) => answer(state, event, closed));
    if (result !== 'recorded') throw new ConflictError(`The run of input request ${row.id} has ended: the request is void`);
    return { input_request: toInputRequestDto((await this.store.find(row.id))!) };
  }

  /** The caller's request of the caller's agent and run; anything else (another user's included) is a 404. */
  private async owned(message: AnswerInputRequestMessage): Promise<InputRequestRow> {
    const ids = [message.request_id, message.run_id, message.agent_id];
    if (!ids.every((id) => isUUID(id))) throw new ResourceNotFoundError('Input request', message.request_id);
    const [generation, row] = await Promise.all([this.ownedGeneration(message.user_id, message.agent_id), this.store.find(message.request_id)]);
    if (!row || row.runId !== message.run_id || !isOwned(row, message.user_id, message.agent_id, generation)) {
      throw new ResourceNotFoundError('Input request', message.request_id);
    }
    return row;
  }

  private async ownedGeneration(userId: string, agentId: string): Promise<number> {
    return (await this.services.request(AgentsPatterns.GetOwnedAgent, { user_id: userId, agent_id: agentId })).generation;
  }
}

function isOwned(row: RunOwner, userId: string, agentId: string, generation: number): boolean {
  return row.userId === userId && row.agentId === agentId && (row.agentGeneration === null || row.agentGeneration === generation);
}

/** 413 past INPUT_ANSWER_MAX_BYTES; 400 naming the field for JSON PostgreSQL cannot keep, or that breaks the schema. */
function checkAnswer(row: InputRequestRow, value: unknown): void {
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > INPUT_ANSWER_MAX_BYTES) {
    throw new PayloadTooLargeError(`The answer is larger than ${INPUT_ANSWER_MAX_BYTES} bytes as JSON`);
  }
  const fault = jsonValueFault(value);
  if (fault) {
    const field = `answer${fault.path.slice(1)}`;
    throw new ValidationFailedError(`${field} ${fault.rule}`, [{ field, message: `${field} ${fault.rule}` }]);
  }
  const faults = answerFaults(row.schema, value);
  if (faults.length > 0) throw new ValidationFailedError(`The answer does not match the input request's schema: ${faults[0].message}`, faults);
}
