import { DynamicModule, Module } from '@nestjs/common';
import { serviceFoundation } from '@aas/platform';
import { RUNS_SERVICE } from './runs-service.definition';

@Module({})
export class RunsServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return { module: RunsServiceModule, imports: serviceFoundation(RUNS_SERVICE, overrides) };
  }
}
