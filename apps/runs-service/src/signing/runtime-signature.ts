import { createHmac } from 'node:crypto';

/**
 * `sha256=` + hex HMAC-SHA256 of a request body, keyed with AGENT_RUNTIME_SECRET: the
 * X-Service-Signature of what runs-service sends a runtime (the dispatch, and the catalogue
 * request, whose body is empty), so a runtime checks both with one function.
 */
export function signDispatch(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
