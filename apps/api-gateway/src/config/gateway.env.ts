import { CommonEnv } from '@aas/platform';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsAtLeastSetting } from './is-at-least-setting';
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

  /**
   * The public base of inbound webhook URLs (for example https://aas.example.com). Required: a URL
   * is never built from the Host header a caller sent.
   */
  @Matches(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, {
    message: 'PUBLIC_BASE_URL must be set to the http(s) URL clients reach the gateway at (no query or fragment), e.g. https://aas.example.com',
  })
  PUBLIC_BASE_URL!: string;

  // The edge (docs/operations.md, "Connections and timeouts"): what a client may hold open.

  /** Time to receive a request's headers, from the connection's first byte (or from its start when it sends none); over it a 408 and the connection is closed. */
  @IsInt({ message: 'HTTP_HEADERS_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(300_000)
  HTTP_HEADERS_TIMEOUT_MS: number = 10_000;

  /** Time to receive a whole request, headers and body; never applies to the response (event streams stay open). */
  @IsInt({ message: 'HTTP_REQUEST_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(3_600_000)
  @IsAtLeastSetting('HTTP_HEADERS_TIMEOUT_MS')
  HTTP_REQUEST_TIMEOUT_MS: number = 30_000;

  /** How long a keep-alive connection may stay idle between requests. Behind a proxy that reuses connections, above its idle timeout. */
  @IsInt({ message: 'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 5_000;

  /**
   * Connections one client address (IPv6: its /64) may hold open to this gateway replica; over it a
   * new connection is closed unanswered. Behind TRUST_PROXY, the requests in progress of one
   * forwarded client address, over it a 429. 0 turns the cap off.
   */
  @IsInt({ message: 'HTTP_CONNECTIONS_PER_ADDRESS must be an integer' })
  @Min(0)
  @Max(1_000_000)
  HTTP_CONNECTIONS_PER_ADDRESS: number = 256;

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

  /**
   * Whether the console is served over HTTPS, which makes the session cookie `Secure` and names it
   * `__Host-aas_session`: `auto` follows PUBLIC_BASE_URL's scheme when it is set, else each request
   * (TLS on the connection, or X-Forwarded-Proto: https); `always`; `never`.
   */
  @IsIn(['auto', 'always', 'never'], { message: 'CONSOLE_COOKIE_SECURE must be auto, always or never' })
  CONSOLE_COOKIE_SECURE: 'auto' | 'always' | 'never' = 'auto';

  /** Failed sign-in and setup attempts one client address (IPv6: its /64) may make per LOGIN_RATE_LIMIT_WINDOW_SECONDS; 0 turns the limit off. */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  LOGIN_RATE_LIMIT_PER_ADDRESS: number = 20;

  /** Failed sign-in and setup attempts one client address may make per minute before it must wait for the next; 0 turns it off. */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  LOGIN_FAILURES_PER_MINUTE: number = 5;

  /**
   * Failed sign-ins for one email, from all addresses together, per window past which an address
   * that has failed for that email is refused for it (an address that has not is never); 0 turns it off.
   */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
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
