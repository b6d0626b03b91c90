import type { FastifyRequest } from 'fastify';

/**
 * The public URL of an inbound endpoint: under PUBLIC_BASE_URL when it is set, else under the
 * address this request reached (its protocol and host, from X-Forwarded-* only under TRUST_PROXY).
 */
export function publicHookUrl(publicBaseUrl: string, request: FastifyRequest, triggerId: string, token: string): string {
  const base = publicBaseUrl !== '' ? publicBaseUrl.replace(/\/+$/, '') : `${request.protocol}://${request.host}`;
  return `${base}/hooks/${triggerId}/${token}`;
}
