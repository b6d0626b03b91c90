import type { IncomingHttpHeaders } from 'node:http';

/** Credentials and connection details never reach a template or a runtime. */
const WITHHELD = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'x-csrf-token',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);
const MAX_HEADERS = 64;
const MAX_VALUE = 2048;

/**
 * The headers of an inbound call that are passed on (to signature checks, templates and the
 * runtime's dispatch): lower-cased names, repeated values joined, long values cut, at most 64.
 */
export function passableHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || WITHHELD.has(name)) continue;
    if (Object.keys(passed).length === MAX_HEADERS) break;
    passed[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, MAX_VALUE);
  }
  return passed;
}
