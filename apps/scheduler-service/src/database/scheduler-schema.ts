import { OutboxEventEntity, OutboxRequestId1763910000000, SchemaDefinition } from '@aas/platform';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { TriggerEntity } from '../triggers/trigger.entity';
import { CreateSchedules1763890000000 } from './migrations/1763890000000-create-schedules';
import { ScheduleMisfireAndErrors1764000000000 } from './migrations/1764000000000-schedule-misfire-and-errors';
import { CreateTriggers1764000000003 } from './migrations/1764000000003-create-triggers';
import { ScheduleAgentGeneration1764200000000 } from './migrations/1764200000000-schedule-agent-generation';
import { ScheduleLastEndedRun1764600000000 } from './migrations/1764600000000-schedule-last-ended-run';

export const SCHEDULER_SCHEMA: SchemaDefinition = {
  schema: 'scheduler',
  entities: [ScheduleEntity, TriggerEntity, OutboxEventEntity],
  migrations: [
    CreateSchedules1763890000000,
    OutboxRequestId1763910000000,
    ScheduleMisfireAndErrors1764000000000,
    CreateTriggers1764000000003,
    ScheduleAgentGeneration1764200000000,
    ScheduleLastEndedRun1764600000000,
  ],
};
