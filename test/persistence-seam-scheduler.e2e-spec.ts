import { describeSeam, SeamCase } from './support/seam-lint';

/**
 * scheduler-service's persistence seam (eslint.config.mjs, docs/architecture.md "Where things are"):
 * only its stores, migrations and tests reach the database; the rest depends on the stores' abstract classes.
 */
const BROKEN: SeamCase[] = [
  ['a service importing DataSource', 'apps/scheduler-service/src/schedules/x.service.ts', "import { DataSource } from 'typeorm';"],
  ['a processor importing EntityManager for its type', 'apps/scheduler-service/src/firing/x.processor.ts', "import type { EntityManager } from 'typeorm';"],
  ['a consumer importing Repository', 'apps/scheduler-service/src/firing/x.consumer.ts', "import { Repository } from 'typeorm';"],
  ['a handler injecting the data source', 'apps/scheduler-service/src/triggers/x.handlers.ts', "import { InjectDataSource } from '@nestjs/typeorm';"],
  ['a service injecting a repository', 'apps/scheduler-service/src/triggers/x.service.ts', "import { InjectRepository } from '@nestjs/typeorm';"],
  ['the ticker taking all of typeorm', 'apps/scheduler-service/src/firing/schedule-ticker.ts', "import * as typeorm from 'typeorm';\nexport const t = typeorm;"],
  ['a file outside a resource folder', 'apps/scheduler-service/src/x.ts', "import { DataSource } from 'typeorm';"],
  ['a service writing the outbox itself', 'apps/scheduler-service/src/firing/x.ts', "import { recordEvents } from '@aas/platform';"],
];

const LEGAL: SeamCase[] = [
  ['a store using the data source and a transaction', 'apps/scheduler-service/src/schedules/postgres-schedule.store.ts', "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource, EntityManager } from 'typeorm';\nimport { recordEvents } from '@aas/platform';"],
  ['a migration using the query runner', 'apps/scheduler-service/src/database/migrations/1799999999999-x.ts', "import { MigrationInterface, QueryRunner } from 'typeorm';"],
  ['an entity declaring its columns', 'apps/scheduler-service/src/schedules/x.entity.ts', "import { Column, Entity, PrimaryColumn } from 'typeorm';"],
  ['a service depending on the store and the outbox relay', 'apps/scheduler-service/src/firing/x.ts', "import { ScheduleStore } from '../schedules/schedule.store';\nimport { OutboxRelay } from '@aas/platform';"],
  ['a store integration test', 'apps/scheduler-service/src/schedules/x.int-spec.ts', "import { DataSource } from 'typeorm';"],
  ['a unit test', 'apps/scheduler-service/src/firing/x.spec.ts', "import { DataSource } from 'typeorm';"],
  ['a lib', 'libs/platform/src/x.ts', "import { DataSource } from 'typeorm';"],
  ['an end-to-end test', 'test/x.e2e-spec.ts', "import { DataSource } from 'typeorm';"],
];

describeSeam('scheduler-service', BROKEN, LEGAL);
