import type { FastifyServerOptions } from 'fastify';

export interface EdgeTimeouts {
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
}

/** Node checks the headers and request timeouts this often; a connection is closed at most this late. */
export function timeoutCheckInterval(headersTimeoutMs: number): number {
  return Math.max(25, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
}

/**
 * Node's HTTP server options that bound what a client may hold without sending: its headers
 * (headersTimeout, also a connection that sends nothing), its whole request (requestTimeout,
 * headers and body) and an idle keep-alive connection. None applies while a response is being
 * written, so an event stream stays open. The socket idle timeout (connectionTimeout) stays off
 * for that reason. A request over its timeout is answered 408 on the socket (clientErrorHandler).
 */
export function serverTimeouts(env: EdgeTimeouts): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout'> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    // Fastify sets these two on the server after creating it (its defaults: 0, no limit, and 72 s).
    requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: 0,
    // Options of http.createServer: Node checks the timeouts every connectionsCheckingInterval (30 s by default).
    http: {
      headersTimeout: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: timeoutCheckInterval(env.HTTP_HEADERS_TIMEOUT_MS),
    },
  };
}
