import { describeSeam, SeamCase } from './support/seam-lint';

/**
 * agents-service's persistence seam (eslint.config.mjs, docs/architecture.md "Where things are"): only its
 * stores, its database folder and its tests reach PostgreSQL. Proven on code never written to disk.
 */
const BROKEN: SeamCase[] = [
  ['a service injecting the data source', 'apps/agents-service/src/agents/x.service.ts', "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource } from 'typeorm';\nexport type T = DataSource;\nexport const d = InjectDataSource;"],
  ['a handler injecting a repository', 'apps/agents-service/src/api-keys/x.handlers.ts', "import { InjectRepository } from '@nestjs/typeorm';\nexport const r = InjectRepository;"],
  ['a consumer naming a repository type', 'apps/agents-service/src/agent-runs/x.consumer.ts', "import type { Repository } from 'typeorm';\nexport type R = Repository<object>;"],
  ['a quota check taking an entity manager', 'apps/agents-service/src/quotas/x.ts', "import { EntityManager } from 'typeorm';\nexport type M = EntityManager;"],
  ['a module registering repositories', 'apps/agents-service/src/users/x.module.ts', "import { TypeOrmModule } from '@nestjs/typeorm';\nexport const m = TypeOrmModule;"],
  ['a service using pg itself', 'apps/agents-service/src/workspaces/x.ts', "import { Pool } from 'pg';\nexport const p = Pool;"],
  ['a service writing the outbox', 'apps/agents-service/src/agents/x.service.ts', "import { recordEvents } from '@aas/platform';\nexport const r = recordEvents;"],
  ['a raw query through whatever it was given', 'apps/agents-service/src/instructions/x.service.ts', "export const run = (db: { query(sql: string): unknown }) => db.query('SELECT 1');"],
  ['a query builder', 'apps/agents-service/src/agents/x.service.ts', "export const run = (db: { createQueryBuilder(): unknown }) => db.createQueryBuilder();"],
  ['a transaction opened by a service', 'apps/agents-service/src/console-sessions/x.service.ts', "export const run = (db: { transaction(work: () => void): unknown }) => db.transaction(() => undefined);"],
];

const LEGAL: SeamCase[] = [
  ['a store', 'apps/agents-service/src/agents/x.store.ts', "import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource, EntityManager } from 'typeorm';\nexport type T = [DataSource, EntityManager];\nexport const d = InjectDataSource;\nexport const run = (db: DataSource) => db.query('SELECT 1');"],
  ['a migration', 'apps/agents-service/src/database/migrations/x.ts', "import { QueryRunner } from 'typeorm';\nexport const up = (runner: QueryRunner) => runner.query('SELECT 1');"],
  ['the transactions seam', 'apps/agents-service/src/database/x.ts', "import { DataSource } from 'typeorm';\nexport const run = (db: DataSource) => db.transaction(async () => undefined);"],
  ['an integration test', 'apps/agents-service/src/agents/x.int-spec.ts', "import { DataSource } from 'typeorm';\nexport const run = (db: DataSource) => db.query('SELECT 1');"],
  ['an entity', 'apps/agents-service/src/agents/x.entity.ts', "import { Column, Entity, PrimaryColumn } from 'typeorm';\nexport const decorators = [Column, Entity, PrimaryColumn];"],
  ['a service using a store and a unit of work', 'apps/agents-service/src/agents/x.service.ts', "import { Transactions } from '@aas/platform';\nimport { AgentStore } from './agent.store';\nexport const run = (t: Transactions, s: AgentStore) => t.run((tx) => s.moveTo(tx, 'a', 'w'));"],
  ['a service of an app the seam does not cover (the gateway has no database)', 'apps/api-gateway/src/runs/x.service.ts', "import { DataSource } from 'typeorm';\nexport const run = (db: DataSource) => db.query('SELECT 1');"],
];

describeSeam('agents-service', BROKEN, LEGAL);
