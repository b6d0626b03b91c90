import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/**
 * Turns the environment into a typed, validated settings object. Every bad
 * variable is listed at once, so an operator fixes them in one go.
 */
export function validateEnv<T extends object>(schema: ClassConstructor<T>, env: Record<string, unknown>): T {
  const settings = plainToInstance(schema, stripEmpty(env), {
    enableImplicitConversion: true,
    exposeDefaultValues: true,
  });
  const errors = validateSync(settings, { skipMissingProperties: false });
  if (errors.length > 0) {
    const lines = errors.flatMap((e) =>
      Object.values(e.constraints ?? {}).map((m) => `  - ${m} (got ${describe(e.property, e.value)})`),
    );
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return settings;
}

/** An empty variable means "use the default", as in most twelve-factor apps. */
function stripEmpty(env: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
}

/** Settings whose value must never reach a log, even when it is malformed (MCP_SERVERS: its servers' headers). */
const SECRET_SETTING = /KEY|SECRET|PASSWORD|TOKEN|DATABASE_URL|REDIS_URL|MCP_SERVERS/;

function describe(name: string, value: unknown): string {
  if (value === undefined) return 'nothing';
  if (SECRET_SETTING.test(name)) return `a value of ${String(value).length} characters, not shown`;
  return JSON.stringify(value);
}
