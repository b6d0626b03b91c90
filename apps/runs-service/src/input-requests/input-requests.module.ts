import { Module } from '@nestjs/common';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { InputRequestSweep } from './input-request-sweep';
import { InputRequestStore } from './input-request.store';
import { InputRequestsHandlers } from './input-requests.handlers';
import { InputRequestsService } from './input-requests.service';
import { PostgresInputRequestStore } from './postgres-input-request.store';
import { RunSuspension } from './run-suspension';

/** Questions runs ask a person (docs/input-requests.md): the answer API, and the sweep of pauses and timeouts. */
@Module({
  imports: [LifecycleModule],
  controllers: [InputRequestsHandlers],
  providers: [{ provide: InputRequestStore, useClass: PostgresInputRequestStore }, InputRequestsService, InputRequestSweep, RunSuspension],
  exports: [RunSuspension],
})
export class InputRequestsModule {}
