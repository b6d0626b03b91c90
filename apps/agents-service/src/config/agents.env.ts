import { ServiceEnv } from '@aas/platform';
import { IsEmail, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';

export class AgentsEnv extends ServiceEnv {
  override HEALTH_PORT: number = 3001;

  /** When set, this exact key is made a valid key of the bootstrap user at start. Never logged. */
  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'BOOTSTRAP_API_KEY must be at least 8 characters' })
  BOOTSTRAP_API_KEY?: string;

  @IsEmail({ require_tld: false }, { message: 'BOOTSTRAP_USER_EMAIL must be an email address' })
  BOOTSTRAP_USER_EMAIL: string = 'admin@localhost';

  /** How often last-use times recorded by the gateways in Redis are written to PostgreSQL. */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  API_KEY_USAGE_FLUSH_MS: number = 30_000;

  // Quotas (docs/quotas-and-limits.md). Each is a 422 quota-exceeded when passed; 0 turns it off.

  /** Active (not revoked) API keys one user may hold. */
  @IsInt({ message: 'QUOTA_API_KEYS_PER_USER must be an integer' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_API_KEYS_PER_USER: number = 100;

  /** Agents one user may have. */
  @IsInt({ message: 'QUOTA_AGENTS_PER_USER must be an integer' })
  @Min(0)
  @Max(100_000_000)
  QUOTA_AGENTS_PER_USER: number = 1000;

  /** Workspaces one user may have, the default workspace included. */
  @IsInt({ message: 'QUOTA_WORKSPACES_PER_USER must be an integer' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_WORKSPACES_PER_USER: number = 100;

  /** Most bytes of one instructions version: its content (UTF-8) plus its plan_steps (as JSON). */
  @IsInt({ message: 'QUOTA_INSTRUCTIONS_BYTES must be an integer' })
  @Min(0)
  @Max(64 * 1024 * 1024)
  QUOTA_INSTRUCTIONS_BYTES: number = 256 * 1024;

  /** Instruction versions kept per agent, the current one included; older ones are deleted as new ones are written. */
  @IsInt({ message: 'QUOTA_INSTRUCTION_VERSIONS_KEPT must be an integer' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_INSTRUCTION_VERSIONS_KEPT: number = 50;

  /** How long a console session lasts from sign-in (then the user signs in again). */
  @IsInt()
  @Min(60_000)
  @Max(30 * 24 * 3_600_000)
  CONSOLE_SESSION_TTL_MS: number = 12 * 3_600_000;

  /** A console session not used for this long ends (sliding), whatever its CONSOLE_SESSION_TTL_MS. */
  @IsInt()
  @Min(60_000)
  @Max(30 * 24 * 3_600_000)
  CONSOLE_SESSION_IDLE_TIMEOUT_MS: number = 30 * 60_000;
}
