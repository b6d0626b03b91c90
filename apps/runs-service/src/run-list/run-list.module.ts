import { Module } from '@nestjs/common';
import { PostgresRunListStore } from './postgres-run-list.store';
import { RunList } from './run-list';
import { RunListStore } from './run-list.store';

@Module({
  providers: [RunList, { provide: RunListStore, useClass: PostgresRunListStore }],
  exports: [RunList, RunListStore],
})
export class RunListModule {}
