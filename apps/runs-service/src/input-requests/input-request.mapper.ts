import { InputRequestDto } from '@aas/contracts';
import { InputRequestRow } from './input-request.store';

/** A row as the API shows it: every nullable field present as null. */
export function toInputRequestDto(row: InputRequestRow): InputRequestDto {
  return {
    request_id: row.id,
    run_id: row.runId,
    agent_id: row.agentId,
    status: row.status,
    input_id: row.inputId,
    prompt: row.prompt,
    schema: row.schema,
    choices: row.choices,
    notify: row.notify,
    on_timeout: row.onTimeout,
    created_at: row.createdAt.toISOString(),
    timeout_at: row.timeoutAt.toISOString(),
    answer: row.answer === null ? null : JSON.parse(row.answer),
    answered_at: row.answeredAt?.toISOString() ?? null,
    answered_by: row.answeredBy,
  };
}
