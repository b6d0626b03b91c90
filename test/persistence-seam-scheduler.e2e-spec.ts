import { lintMessages } from './support/lint-text';

const SEAM = 'no-restricted-imports';

/** The messages of the rule under test, per case (test/support/lint-text.ts). */
function seamMessages(cases: Array<{ filePath: string; code: string }>): string[][] {
  return lintMessages(cases, [SEAM]).map((messages) => messages.map((m) => m.slice(SEAM.length + 2)));
}

/**
 * scheduler-service's persistence seam (eslint.config.mjs, docs/architecture.md "Where things are"):
 * only its stores, migrations and tests reach the database; the rest depends on the stores' abstract classes.
 */
const BROKEN: Array<[string, string, string]> = [
  ['a service importing DataSource', 'apps/scheduler-service/src/schedules/x.service.ts', "import { DataSource } from 'typeorm';"],
  ['a processor importing EntityManager for its type', 'apps/scheduler-service/src/firing/x.processor.ts', "import type { EntityManager } from 'typeorm';"],
  ['a consumer importing Repository', 'apps/scheduler-service/src/firing/x.consumer.ts', "import { Repository } from 'typeorm';"],
  ['a handler injecting the data source', 'apps/scheduler-service/src/triggers/x.handlers.ts', "import { InjectDataSource } from '@nestjs/typeorm';"],
  ['a service injecting a repository', 'apps/scheduler-service/src/triggers/x.service.ts', "import { InjectRepository } from '@nestjs/typeorm';"],
  ['the ticker taking all of typeorm', 'apps/scheduler-service/src/firing/schedule-ticker.ts', "import * as typeorm from 'typeorm';\nexport const t = typeorm;"],
  ['a file outside a resource folder', 'apps/scheduler-service/src/x.ts', "import { DataSource } from 'typeorm';"],
  ['a service writing the outbox itself', 'apps/scheduler-service/src/firing/x.ts', "import { recordEvents } from '@aas/platform';"],
];

const LEGAL: Array<[string, string, string]> = [
  ['a store using the data source and a transaction', 'apps/scheduler-service/src/schedules/postgres-schedule.store.ts', "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource, EntityManager } from 'typeorm';\nimport { recordEvents } from '@aas/platform';"],
  ['a migration using the query runner', 'apps/scheduler-service/src/database/migrations/1799999999999-x.ts', "import { MigrationInterface, QueryRunner } from 'typeorm';"],
  ['an entity declaring its columns', 'apps/scheduler-service/src/schedules/x.entity.ts', "import { Column, Entity, PrimaryColumn } from 'typeorm';"],
  ['a service depending on the store and the outbox relay', 'apps/scheduler-service/src/firing/x.ts', "import { ScheduleStore } from '../schedules/schedule.store';\nimport { OutboxRelay } from '@aas/platform';"],
  ['a store integration test', 'apps/scheduler-service/src/schedules/x.int-spec.ts', "import { DataSource } from 'typeorm';"],
  ['a unit test', 'apps/scheduler-service/src/firing/x.spec.ts', "import { DataSource } from 'typeorm';"],
  ['a lib', 'libs/platform/src/x.ts', "import { DataSource } from 'typeorm';"],
  ['an end-to-end test', 'test/x.e2e-spec.ts', "import { DataSource } from 'typeorm';"],
];

describe("scheduler-service's persistence seam in npm run lint", () => {
  const all = [...BROKEN, ...LEGAL];
  const messages = new Map<string, string[]>();

  beforeAll(() => {
    const results = seamMessages(all.map(([, filePath, code]) => ({ filePath, code })));
    all.forEach(([name], i) => messages.set(name, results[i]));
  });

  it.each(BROKEN)('reports %s (%s)', (name, filePath) => {
    expect({ filePath, reported: messages.get(name)!.length }).toEqual({ filePath, reported: 1 });
    expect(messages.get(name)![0]).toMatch(/store/);
  });

  it.each(LEGAL)('allows %s (%s)', (name, filePath) => {
    expect({ filePath, messages: messages.get(name) }).toEqual({ filePath, messages: [] });
  });
});
