import { EventNames, RunLifecycleEvent } from '@aas/contracts';
import { webhookBody } from './webhook-body';

const base: RunLifecycleEvent = {
  event: EventNames.RunStarted,
  run_id: 'r',
  agent_id: 'a',
  user_id: 'u',
  status: 'in_progress',
  run_kind: 'api',
  schedule_agent_id: null,
  timestamp: '2026-01-01T00:00:00.000Z',
};

describe(webhookBody.name, () => {
  it('run.started has neither outcome nor finished_at, and no user_id', () => {
    expect(JSON.parse(webhookBody({ ...base, outcome: 'success', finished_at: 'x' }))).toEqual({
      event: 'run.started',
      timestamp: base.timestamp,
      data: { run_id: 'r', agent_id: 'a', status: 'in_progress' },
    });
  });

  it('run.completed carries outcome and finished_at', () => {
    const body = JSON.parse(webhookBody({ ...base, event: EventNames.RunCompleted, status: 'completed', outcome: 'partial', finished_at: 'f' }));
    expect(body.data).toEqual({ run_id: 'r', agent_id: 'a', status: 'completed', outcome: 'partial', finished_at: 'f' });
  });

  it.each([EventNames.RunFailed, EventNames.RunStopped])('%s carries finished_at but no outcome', (event) => {
    const body = JSON.parse(webhookBody({ ...base, event, status: 'error', outcome: 'fail', finished_at: 'f' }));
    expect(body.data).toEqual({ run_id: 'r', agent_id: 'a', status: 'error', finished_at: 'f' });
  });

  it('run.paused carries neither', () => {
    const body = JSON.parse(webhookBody({ ...base, event: EventNames.RunPaused, status: 'paused', finished_at: 'f' }));
    expect(body.data).toEqual({ run_id: 'r', agent_id: 'a', status: 'paused' });
  });
});
