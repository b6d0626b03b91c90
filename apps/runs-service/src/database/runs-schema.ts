import { SchemaDefinition } from '@aas/platform';

export const RUNS_SCHEMA: SchemaDefinition = {
  schema: 'runs',
  entities: [],
  migrations: [],
};
