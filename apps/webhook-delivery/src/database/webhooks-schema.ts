import { SchemaDefinition } from '@aas/platform';

export const WEBHOOKS_SCHEMA: SchemaDefinition = {
  schema: 'webhooks',
  entities: [],
  migrations: [],
};
