import { SchemaDefinition } from '@aas/platform';

export const SCHEDULER_SCHEMA: SchemaDefinition = {
  schema: 'scheduler',
  entities: [],
  migrations: [],
};
