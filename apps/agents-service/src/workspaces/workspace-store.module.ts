import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { PostgresWorkspaceStore } from './postgres-workspace.store';
import { WorkspaceStore } from './workspace.store';

const STORE = { provide: WorkspaceStore, useClass: PostgresWorkspaceStore };

/** The workspace store alone: agents are created in workspaces, so AgentsModule needs it without the workspaces' handlers. */
@Module({ imports: [DatabaseModule], providers: [STORE], exports: [STORE] })
export class WorkspaceStoreModule {}
