import { describeSeam, SeamCase } from './support/seam-lint';

const APP = 'apps/runs-service/src';

/**
 * runs-service's persistence seam (eslint.config.mjs, docs/architecture.md "Where things are"): only its
 * stores, its database folder, its fakes and its tests reach PostgreSQL. Proven on code never written to disk.
 */
const BROKEN: SeamCase[] = [
  ['the runs service injecting the data source', `${APP}/runs/x.service.ts`, "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource } from 'typeorm';\nexport type T = DataSource;\nexport const d = InjectDataSource;"],
  ['the executor naming an entity manager', `${APP}/execution/x.ts`, "import type { EntityManager } from 'typeorm';\nexport type M = EntityManager;"],
  ['the agent.deleted consumer running its own statement', `${APP}/maintenance/x.consumer.ts`, "export const run = (db: { query(sql: string): unknown }) => db.query('DELETE FROM runs');"],
  ['a handler injecting a repository', `${APP}/runs/x.handlers.ts`, "import { InjectRepository } from '@nestjs/typeorm';\nexport const r = InjectRepository;"],
  ['admission opening a transaction', `${APP}/admission/x.service.ts`, "export const run = (db: { transaction(work: () => void): unknown }) => db.transaction(() => undefined);"],
  ['the run list building a query', `${APP}/run-list/x.ts`, "export const run = (db: { createQueryBuilder(): unknown }) => db.createQueryBuilder();"],
  ['acceptance registering a data source', `${APP}/acceptance/x.module.ts`, "import { TypeOrmModule } from '@nestjs/typeorm';\nexport const m = TypeOrmModule;"],
  ['the maintenance processor using pg itself', `${APP}/maintenance/x.processor.ts`, "import { Pool } from 'pg';\nexport const p = Pool;"],
  ['the recorder writing the outbox', `${APP}/lifecycle/x-recorder.ts`, "import { recordEvent } from '@aas/platform';\nexport const r = recordEvent;"],
  ['a file at the root of the app', `${APP}/x.ts`, "import { Repository } from 'typeorm';\nexport type R = Repository<object>;"],
];

const LEGAL: SeamCase[] = [
  ['a PostgreSQL store', `${APP}/execution/postgres-x.store.ts`, "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource, EntityManager } from 'typeorm';\nexport type T = [DataSource, EntityManager];\nexport const d = InjectDataSource;\nexport const run = (db: DataSource) => db.query('SELECT 1');"],
  ['a migration', `${APP}/database/migrations/x.ts`, "import { QueryRunner } from 'typeorm';\nexport const up = (runner: QueryRunner) => runner.query('SELECT 1');"],
  ['the transactions seam', `${APP}/database/x.ts`, "import { DataSource } from 'typeorm';\nexport const run = (db: DataSource) => db.transaction(async () => undefined);"],
  ['an entity', `${APP}/database/x.entity.ts`, "import { Column, Entity, PrimaryColumn } from 'typeorm';\nexport const decorators = [Column, Entity, PrimaryColumn];"],
  ['an in-memory fake', `${APP}/runs/x.store.fake.ts`, "export const run = (db: { transaction(work: () => void): unknown }) => db.transaction(() => undefined);"],
  ['an integration test', `${APP}/admission/x.int-spec.ts`, "import { DataSource } from 'typeorm';\nexport const run = (db: DataSource) => db.query('SELECT 1');"],
  ['a unit test', `${APP}/execution/x.spec.ts`, "import { DataSource } from 'typeorm';\nexport type D = DataSource;"],
  ['a service using a store in a unit of work', `${APP}/admission/x.service.ts`, "import { Transactions } from '@aas/platform';\nimport { AdmissionStore } from './admission.store';\nexport const run = (t: Transactions, s: AdmissionStore) => t.run((tx) => s.lockUser(tx, 'u', 'wait'));"],
];

describeSeam('runs-service', BROKEN, LEGAL);
