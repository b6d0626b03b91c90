import { randomUUID } from 'node:crypto';
import { RunEntity } from './run.entity';

/** A run row for unit tests: an admitted run of generation 1 that nothing has executed yet, with `overrides`. */
export function runRow(overrides: Partial<RunEntity> = {}): RunEntity {
  const at = new Date('2026-01-01T00:00:00Z');
  return Object.assign(new RunEntity(), {
    id: randomUUID(),
    agentId: '11111111-1111-4111-8111-111111111111',
    agentGeneration: '1',
    userId: '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f',
    userEmail: 'u@example.test',
    runNumber: 1,
    runMode: 'run',
    runKind: 'api',
    triggerKind: 'api',
    status: 'in_progress',
    outcome: null,
    isFinished: false,
    isPaused: false,
    hasPendingInput: false,
    goal: null,
    policyModel: null,
    policyType: 'runner',
    scheduleAgentId: null,
    webhookSubscriptionId: null,
    triggerId: null,
    triggerDepth: 0,
    chainRootId: null,
    triggerData: null,
    scheduledFor: null,
    wroteInstructions: false,
    summary: null,
    title: null,
    eventCount: '0',
    eventBytes: '0',
    stepCount: '0',
    startedAt: at,
    lastEventAt: at,
    finishedAt: null,
    admittedAt: at,
    ...overrides,
  } satisfies RunEntity);
}
