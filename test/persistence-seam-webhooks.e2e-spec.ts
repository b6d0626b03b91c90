import { describeSeam, SeamCase } from './support/seam-lint';

const APP = 'apps/webhook-delivery/src';

/**
 * webhook-delivery's persistence seam (eslint.config.mjs, docs/architecture.md "Where things are"): only its
 * stores, its database folder, its fakes and its tests reach PostgreSQL. Proven on code never written to disk.
 */
const BROKEN: SeamCase[] = [
  ['a service injecting the data source', `${APP}/subscriptions/x.service.ts`, "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource } from 'typeorm';\nexport type T = DataSource;\nexport const d = InjectDataSource;"],
  ['the delivery worker naming an entity manager', `${APP}/delivery/x.processor.ts`, "import type { EntityManager } from 'typeorm';\nexport type M = EntityManager;"],
  ['the events consumer running its own statement', `${APP}/fan-out/x.consumer.ts`, "export const run = (db: { query(sql: string): unknown }) => db.query('INSERT INTO deliveries DEFAULT VALUES');"],
  ['a history handler injecting a repository', `${APP}/history/x.handlers.ts`, "import { InjectRepository } from '@nestjs/typeorm';\nexport const r = InjectRepository;"],
  ['the sweep opening a transaction', `${APP}/maintenance/x.ts`, "export const run = (db: { transaction(work: () => void): unknown }) => db.transaction(() => undefined);"],
  ['a query builder in the worker', `${APP}/delivery/x.ts`, "export const run = (db: { createQueryBuilder(): unknown }) => db.createQueryBuilder();"],
  ['a module registering repositories', `${APP}/fairness/x.module.ts`, "import { TypeOrmModule } from '@nestjs/typeorm';\nexport const m = TypeOrmModule;"],
  ['signing using pg itself', `${APP}/signing/x.ts`, "import { Pool } from 'pg';\nexport const p = Pool;"],
  ['a service writing the outbox', `${APP}/subscriptions/x.ts`, "import { recordEvents } from '@aas/platform';\nexport const r = recordEvents;"],
  ['a file at the root of the app', `${APP}/x.ts`, "import { Repository } from 'typeorm';\nexport type R = Repository<object>;"],
];

const LEGAL: SeamCase[] = [
  ['a PostgreSQL store', `${APP}/delivery/postgres-x.store.ts`, "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource, EntityManager } from 'typeorm';\nexport type T = [DataSource, EntityManager];\nexport const d = InjectDataSource;\nexport const run = (db: DataSource) => db.query('SELECT 1');"],
  ['a migration', `${APP}/database/migrations/x.ts`, "import { QueryRunner } from 'typeorm';\nexport const up = (runner: QueryRunner) => runner.query('SELECT 1');"],
  ['the transactions seam', `${APP}/database/x.ts`, "import { DataSource } from 'typeorm';\nexport const run = (db: DataSource) => db.transaction(async () => undefined);"],
  ['an entity', `${APP}/database/x.entity.ts`, "import { Column, Entity, PrimaryColumn } from 'typeorm';\nexport const decorators = [Column, Entity, PrimaryColumn];"],
  ['an in-memory fake', `${APP}/history/x.store.fake.ts`, "export const run = (db: { transaction(work: () => void): unknown }) => db.transaction(() => undefined);"],
  ['an integration test', `${APP}/fan-out/x.int-spec.ts`, "import { DataSource } from 'typeorm';\nexport const run = (db: DataSource) => db.query('SELECT 1');"],
  ['a unit test', `${APP}/delivery/x.spec.ts`, "import { DataSource } from 'typeorm';\nexport type D = DataSource;"],
  ['a service using a store in a unit of work', `${APP}/subscriptions/x.service.ts`, "import { Transactions } from '@aas/platform';\nimport { WebhookStore } from './webhook.store';\nexport const run = (t: Transactions, s: WebhookStore) => t.run((tx) => s.lockAgent(tx, 'a'));"],
];

describeSeam('webhook-delivery', BROKEN, LEGAL);
