import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { REQUEST_ID_HEADER } from '@aas/platform';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's x-request-id when it is sane, so one id follows a request across systems; otherwise makes one. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
}
