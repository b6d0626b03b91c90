import { OutboxEventEntity, OutboxRequestId1763910000000, SchemaDefinition } from '@aas/platform';
import { RunEventEntity } from './run-event.entity';
import { RunEntity } from './run.entity';
import { CreateRuns1763870000000 } from './migrations/1763870000000-create-runs';
import { CreateIdempotencyKeys1763880000000 } from './migrations/1763880000000-create-idempotency-keys';
import { RunListIndexesAndCounts1763920000000 } from './migrations/1763920000000-run-list-indexes-and-counts';
import { RunListTotals1763930000000 } from './migrations/1763930000000-run-list-totals';
import { IdempotencyKeyNamespaces1764000000000 } from './migrations/1764000000000-idempotency-key-namespaces';
import { RunsScheduledFor1764000000001 } from './migrations/1764000000001-runs-scheduled-for';
import { RunTriggers1764000000002 } from './migrations/1764000000002-run-triggers';
import { AgentGenerations1764200000000 } from './migrations/1764200000000-agent-generations';
import { RunAdmission1764300000000 } from './migrations/1764300000000-run-admission';
import { RunChains1764424000000 } from './migrations/1764424000000-run-chains';
import { RunUsageAndTools1764500000000 } from './migrations/1764500000000-run-usage-and-tools';
import { RunEnds1764600000000 } from './migrations/1764600000000-run-ends';
import { RunsAcrossAgents1764700000000 } from './migrations/1764700000000-runs-across-agents';
import { RunInputs1764800000000 } from './migrations/1764800000000-run-inputs';
import { RunReplays1764910000000 } from './migrations/1764910000000-run-replays';
import { InputRequests1764930000000 } from './migrations/1764930000000-input-requests';
import { Budgets1764957000000 } from './migrations/1764957000000-budgets';
import { BulkActions1764960000000 } from './migrations/1764960000000-bulk-actions';
import { RunRetention1764970000000 } from './migrations/1764970000000-run-retention';
import { RunDeletions1764970000001 } from './migrations/1764970000001-run-deletions';

export const RUNS_SCHEMA: SchemaDefinition = {
  schema: 'runs',
  entities: [RunEntity, RunEventEntity, OutboxEventEntity],
  migrations: [
    CreateRuns1763870000000,
    CreateIdempotencyKeys1763880000000,
    OutboxRequestId1763910000000,
    RunListIndexesAndCounts1763920000000,
    RunListTotals1763930000000,
    IdempotencyKeyNamespaces1764000000000,
    RunsScheduledFor1764000000001,
    RunTriggers1764000000002,
    AgentGenerations1764200000000,
    RunAdmission1764300000000,
    RunChains1764424000000,
    RunUsageAndTools1764500000000,
    RunEnds1764600000000,
    RunsAcrossAgents1764700000000,
    RunInputs1764800000000,
    RunReplays1764910000000,
    InputRequests1764930000000,
    Budgets1764957000000,
    BulkActions1764960000000,
    RunRetention1764970000000,
    RunDeletions1764970000001,
  ],
};
