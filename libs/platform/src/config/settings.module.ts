import { DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ClassConstructor } from 'class-transformer';
import { validateEnv } from './validate-env';

/**
 * @nestjs/config validated by the app's env class. `overrides` win over the
 * process environment, so tests can run several apps in one process.
 */
export function settingsModule<T extends object>(
  schema: ClassConstructor<T>,
  overrides: Record<string, string> = {},
): Promise<DynamicModule> {
  // ConfigModule copies validated settings into process.env (synchronously, inside forRoot);
  // undo that so one app's settings never leak into another started in the same process.
  const before = new Set(Object.keys(process.env));
  const module = ConfigModule.forRoot({
    isGlobal: true,
    ignoreEnvFile: true,
    cache: true,
    validate: (env) => validateEnv(schema, { ...env, ...overrides }),
  });
  for (const key of Object.keys(process.env)) if (!before.has(key)) delete process.env[key];
  return module;
}
