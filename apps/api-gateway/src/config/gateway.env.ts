import { CommonEnv, EnvBoolean } from '@aas/platform';
import { IsBoolean, IsIn, IsInt, IsString, Max, Min } from 'class-validator';

export class GatewayEnv extends CommonEnv {
  @IsInt({ message: 'PORT must be an integer' })
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  /** Largest request body accepted; larger is a 413. */
  @IsInt()
  @Min(1024)
  @Max(100 * 1024 * 1024)
  BODY_LIMIT_BYTES: number = 1024 * 1024;

  /** How long a verified key is trusted without asking agents-service (revocation is still checked every request). */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  AUTH_CACHE_TTL_MS: number = 60_000;

  @IsInt()
  @Min(1)
  AUTH_CACHE_MAX_KEYS: number = 10_000;

  /** Requests one API key may make per RATE_LIMIT_WINDOW_SECONDS, across all gateway replicas; 0 turns the limit off. */
  @IsInt({ message: 'RATE_LIMIT_REQUESTS must be an integer' })
  @Min(0)
  RATE_LIMIT_REQUESTS: number = 1200;

  @IsInt({ message: 'RATE_LIMIT_WINDOW_SECONDS must be an integer' })
  @Min(1)
  @Max(86_400)
  RATE_LIMIT_WINDOW_SECONDS: number = 60;

  /** Trust X-Forwarded-For/-Host/-Proto from a reverse proxy (the client address of login limits, the host of origin checks). */
  @EnvBoolean()
  @IsBoolean({ message: 'TRUST_PROXY must be true or false' })
  TRUST_PROXY: boolean = false;

  /** Where the built console is (npm run build writes dist/console); empty means dist/console under the working directory. */
  @IsString()
  CONSOLE_DIR: string = '';

  /** The Secure attribute of the session cookie: `auto` sets it when the request came over HTTPS (directly or per X-Forwarded-Proto). */
  @IsIn(['auto', 'always', 'never'], { message: 'CONSOLE_COOKIE_SECURE must be auto, always or never' })
  CONSOLE_COOKIE_SECURE: 'auto' | 'always' | 'never' = 'auto';

  /** Sign-in and setup attempts one client address may make per LOGIN_RATE_LIMIT_WINDOW_SECONDS; 0 turns the limit off. */
  @IsInt()
  @Min(0)
  LOGIN_RATE_LIMIT_PER_ADDRESS: number = 20;

  /** Sign-in attempts per email address per window (a success resets it); 0 turns the limit off. */
  @IsInt()
  @Min(0)
  LOGIN_RATE_LIMIT_PER_EMAIL: number = 10;

  @IsInt()
  @Min(1)
  @Max(86_400)
  LOGIN_RATE_LIMIT_WINDOW_SECONDS: number = 900;
}
