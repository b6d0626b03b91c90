import { CommonEnv } from '@aas/platform';
import { IsInt, Max, Min } from 'class-validator';

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
}
