import { UnrecoverableError } from 'bullmq';
import { EventNames } from './events';
import { EVENT_QUEUES, JOB_REGISTRY } from './job-registry';
import { parseJob } from './parse-job';
import { JobNames, QueueNames } from './queues';

const AGENT = '6f1c2d4e-8a9b-4c3d-9e2f-1a2b3c4d5e6f';
const USER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const RUN = '11111111-2222-4333-8444-555555555555';
const AT = '2026-11-26T10:00:00.000Z';

const lifecycle = {
  event: 'run.completed',
  run_id: RUN,
  agent_id: AGENT,
  user_id: USER,
  status: 'completed',
  outcome: 'success',
  finished_at: AT,
  run_kind: 'schedule',
  schedule_agent_id: AGENT,
  timestamp: AT,
  trigger_depth: 0,
  summary: null,
  agent_generation: 3,
};
const progress = {
  run_id: RUN,
  agent_id: AGENT,
  user_id: USER,
  run_number: 4,
  run_mode: 'run',
  seq: 7,
  status: 'in_progress',
  is_finished: false,
  has_pending_input: false,
  policy_type: null,
  wrote_instructions: false,
  at: AT,
  agent_generation: 3,
};

describe('the job registry', () => {
  it('puts each event on the queues that consume it', () => {
    expect(EVENT_QUEUES).toEqual({
      'agent.deleted': ['runs-events', 'scheduler-events', 'webhooks-events'],
      'run.queued': ['runs-execution'],
      'run.started': ['webhooks-events'],
      'run.completed': ['scheduler-events', 'webhooks-events'],
      'run.failed': ['scheduler-events', 'webhooks-events'],
      'run.stopped': ['scheduler-events', 'webhooks-events'],
      'run.paused': ['scheduler-events', 'webhooks-events'],
      'run.progress': ['agents-events'],
      'run.instructions': ['agents-events'],
      'run.agent_name': ['agents-events'],
      'schedule.fire': ['scheduler-fires'],
      'runs.purged': ['webhooks-events'],
      'bulk_action.chunk': ['runs-bulk-actions'],
    });
  });

  it('lists every queue', () => {
    expect(Object.keys(JOB_REGISTRY).sort()).toEqual(Object.values(QueueNames).sort());
  });
});

describe('parseJob', () => {
  it.each([
    [QueueNames.SchedulerEvents, EventNames.RunCompleted, lifecycle],
    [QueueNames.WebhooksEvents, EventNames.RunStarted, { ...lifecycle, event: 'run.started', status: 'in_progress', outcome: undefined, finished_at: undefined }],
    [QueueNames.AgentsEvents, EventNames.RunProgress, progress],
    [
      QueueNames.AgentsEvents,
      EventNames.RunInstructions,
      { run_id: RUN, agent_id: AGENT, user_id: USER, seq: 3, content: 'c', plan_steps: [{ title: 't', description: 'd', tools: [], order: 0 }], agent_generation: 2 },
    ],
    [
      QueueNames.AgentsEvents,
      EventNames.RunAgentName,
      { run_id: RUN, agent_id: AGENT, user_id: USER, seq: 1, name: 'Digest', explanation: null, agent_generation: 2 },
    ],
    [QueueNames.RunsEvents, EventNames.AgentDeleted, { agent_id: AGENT, user_id: USER, deleted_at: AT, generation: 2, request_id: 'req-1' }],
    [QueueNames.RunsExecution, EventNames.RunQueued, { run_id: RUN }],
    [QueueNames.SchedulerFires, EventNames.ScheduleFire, { agent_id: AGENT, user_id: USER, fire_time: AT, agent_generation: null }],
    [QueueNames.WebhookDeliveries, JobNames.Deliver, { delivery_id: RUN }],
    [QueueNames.RunsMaintenance, JobNames.PurgeIdempotencyKeys, {}],
    [QueueNames.RunsMaintenance, JobNames.PurgeExpiredRuns, {}],
    [QueueNames.RunsMaintenance, JobNames.PurgeRequestedRuns, {}],
    [QueueNames.WebhooksEvents, EventNames.RunsPurged, { run_ids: [RUN] }],
    [QueueNames.WebhooksMaintenance, JobNames.SweepLostDeliveries, {}],
  ] as const)('accepts a %s job "%s" as its producer writes it', (queue, name, data) => {
    expect(parseJob(queue, { id: '1', name, data })).toEqual({ name, data });
  });

  it('accepts a job of the previous version (optional fields absent) and keeps fields it does not know', () => {
    const older = { ...lifecycle, trigger_depth: undefined, summary: undefined, agent_generation: undefined, added_later: 'x' };
    expect(parseJob(QueueNames.SchedulerEvents, { name: 'run.completed', data: older }).data).toBe(older);
  });

  it.each([
    ['a missing run_id', { ...lifecycle, run_id: undefined }, /run_id/],
    ['an agent_id that is no UUID', { ...lifecycle, agent_id: 'agent-1' }, /agent_id/],
    ['an event that is not a lifecycle event', { ...lifecycle, event: 'run.progress' }, /event/],
    ['a timestamp that is no date', { ...lifecycle, timestamp: 'yesterday' }, /timestamp/],
    ['a negative trigger depth', { ...lifecycle, trigger_depth: -1 }, /trigger_depth/],
    ['a generation given as text', { ...lifecycle, agent_generation: '3' }, /agent_generation/],
  ])('fails a run lifecycle event with %s for good, naming the field', (_, data, field) => {
    expect(() => parseJob(QueueNames.SchedulerEvents, { id: '9', name: 'run.failed', data })).toThrow(UnrecoverableError);
    expect(() => parseJob(QueueNames.SchedulerEvents, { id: '9', name: 'run.failed', data })).toThrow(field);
  });

  it('refuses a job name its queue does not carry, even one another queue carries', () => {
    expect(() => parseJob(QueueNames.AgentsEvents, { id: '5', name: 'run.completed', data: lifecycle })).toThrow(
      'job 5 on agents-events: "run.completed" is not a job of this queue',
    );
    expect(() => parseJob(QueueNames.RunsEvents, { name: 'toString', data: {} })).toThrow(UnrecoverableError);
  });

  it.each([null, 'run', [RUN], 42])('refuses data that is not an object: %p', (data) => {
    expect(() => parseJob(QueueNames.RunsExecution, { id: '2', name: 'run.queued', data })).toThrow('its data is not an object');
  });

  it('refuses a runs.purged event without runs, or naming more than a batch', () => {
    expect(() => parseJob(QueueNames.WebhooksEvents, { name: 'runs.purged', data: { run_ids: [] } })).toThrow(/run_ids/);
    expect(() => parseJob(QueueNames.WebhooksEvents, { name: 'runs.purged', data: { run_ids: ['run-1'] } })).toThrow(/run_ids/);
    const tooMany = Array.from({ length: 1001 }, () => RUN);
    expect(() => parseJob(QueueNames.WebhooksEvents, { name: 'runs.purged', data: { run_ids: tooMany } })).toThrow(/run_ids/);
  });

  it('refuses a delivery job without a delivery id, and a progress event with a fractional seq', () => {
    expect(() => parseJob(QueueNames.WebhookDeliveries, { name: 'deliver', data: { delivery_id: '' } })).toThrow(/delivery_id/);
    expect(() => parseJob(QueueNames.AgentsEvents, { name: 'run.progress', data: { ...progress, seq: 1.5 } })).toThrow(/seq/);
  });
});

describe('the bulk action chunk job', () => {
  it('is accepted with an action id and a chunk counter, and refused without', () => {
    const job = (data: object) => ({ name: EventNames.BulkActionChunk, data }) as never;
    expect(parseJob(QueueNames.RunsBulkActions, job({ bulk_action_id: '0e7c5a56-3a37-4a8e-9d1c-2a1c8e0e7d10', chunk: 2 })).data).toMatchObject({ chunk: 2 });
    expect(() => parseJob(QueueNames.RunsBulkActions, job({ bulk_action_id: '0e7c5a56-3a37-4a8e-9d1c-2a1c8e0e7d10', chunk: 0 }))).toThrow();
  });
});
