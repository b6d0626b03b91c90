import { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServiceEnv } from '../config/common.env';
import { ServiceDatabaseOptions, dataSourceOptions, dataSourceOptionsFromEnv } from './data-source-options';

export type SchemaDefinition = Pick<ServiceDatabaseOptions, 'schema' | 'entities' | 'migrations'>;

/** TypeORM on the service's own schema, from DATABASE_URL. Migrations are applied by `migrate`, never here. */
export function serviceDatabaseModule(definition: SchemaDefinition): DynamicModule {
  return TypeOrmModule.forRootAsync({
    inject: [ConfigService],
    useFactory: (config: ConfigService<ServiceEnv, true>) =>
      dataSourceOptions(
        dataSourceOptionsFromEnv(definition, {
          DATABASE_URL: config.get('DATABASE_URL', { infer: true }),
          DATABASE_POOL_SIZE: config.get('DATABASE_POOL_SIZE', { infer: true }),
        }),
      ),
  });
}
