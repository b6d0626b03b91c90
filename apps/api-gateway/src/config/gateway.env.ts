import { CommonEnv } from '@aas/platform';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsTrustProxySetting } from './trust-proxy';

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

  /**
   * Requests one user may make per RATE_LIMIT_WINDOW_SECONDS, all of its API keys together, across
   * all gateway replicas; 0 turns the limit off.
   */
  @IsInt({ message: 'RATE_LIMIT_REQUESTS must be an integer' })
  @Min(0)
  RATE_LIMIT_REQUESTS: number = 1200;

  @IsInt({ message: 'RATE_LIMIT_WINDOW_SECONDS must be an integer' })
  @Min(1)
  @Max(86_400)
  RATE_LIMIT_WINDOW_SECONDS: number = 60;

  /**
   * Requests one client address may make per RATE_LIMIT_WINDOW_SECONDS without a key this gateway
   * has already verified: missing or bad keys, key look-ups, /metrics and /readyz/deep (never
   * /healthz and /readyz, the kubelet's probes). IPv6 addresses count by their /64. 0 turns it off.
   */
  @IsInt({ message: 'RATE_LIMIT_UNAUTHENTICATED_REQUESTS must be an integer' })
  @Min(0)
  RATE_LIMIT_UNAUTHENTICATED_REQUESTS: number = 120;

  /**
   * Which proxies' X-Forwarded-For to believe for the client address: false (the connection's
   * peer is the client) or a comma-separated list of proxy addresses and CIDR ranges (Fastify's
   * trustProxy). Never `true` or a hop count, which would let clients pick their address.
   */
  @IsTrustProxySetting()
  TRUST_PROXY: string = 'false';

  /** Calls one inbound webhook endpoint (trigger URL) may take per RATE_LIMIT_WINDOW_SECONDS, from all addresses together. 0 turns it off. */
  @IsInt({ message: 'RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS must be an integer' })
  @Min(0)
  RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: number = 600;

  /**
   * The public base of inbound webhook URLs (for example https://aas.example.com); empty: the
   * protocol and host the creating request reached.
   */
  @Matches(/^$|^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, { message: 'PUBLIC_BASE_URL must be empty or an http(s) URL without query or fragment' })
  PUBLIC_BASE_URL: string = '';

  /**
   * The installation's WEBHOOK_SECRET_KEY, from which the gateway derives (HKDF) the key that checks the
   * aas-chain header of this installation's own webhook deliveries: such calls to inbound endpoints are
   * not charged to their sender's address. Unset: they are charged like any other call.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'WEBHOOK_SECRET_KEY must be the base64 of 32 random bytes (openssl rand -base64 32)' })
  WEBHOOK_SECRET_KEY?: string;

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

  // Live run event streams (docs/quotas-and-limits.md, "Event streams").

  /** Open event streams one user may have at once, across every gateway replica; over it a 429. 0 turns the cap off. */
  @IsInt({ message: 'STREAMS_PER_USER must be an integer' })
  @Min(0)
  @Max(1_000_000)
  STREAMS_PER_USER: number = 20;

  /** Bytes a stream may have written but its client not yet read; past it the client is not reading and is disconnected. */
  @IsInt({ message: 'STREAM_BUFFER_BYTES must be an integer' })
  @Min(64 * 1024)
  @Max(64 * 1024 * 1024)
  STREAM_BUFFER_BYTES: number = 1024 * 1024;

  /** How often a gateway checks, in one request for all its streams, that no pushed event was lost and no run was deleted unseen. */
  @IsInt({ message: 'STREAM_CHECK_INTERVAL_MS must be an integer' })
  @Min(1000)
  @Max(3_600_000)
  STREAM_CHECK_INTERVAL_MS: number = 30_000;
}
