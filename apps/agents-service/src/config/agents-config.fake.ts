import { ConfigService } from '@nestjs/config';
import { AgentsEnv } from './agents.env';

/** The settings with their defaults, and `overrides`, as services read them. */
export function fakeAgentsConfig(overrides: Partial<AgentsEnv> = {}): ConfigService<AgentsEnv, true> {
  const env = Object.assign(new AgentsEnv(), overrides);
  return { get: (key: keyof AgentsEnv) => env[key] } as unknown as ConfigService<AgentsEnv, true>;
}
