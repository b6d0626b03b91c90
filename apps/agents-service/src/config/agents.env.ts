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

  /** How long a console session lasts from sign-in (then the user signs in again). */
  @IsInt()
  @Min(60_000)
  @Max(30 * 24 * 3_600_000)
  CONSOLE_SESSION_TTL_MS: number = 12 * 3_600_000;
}
