// Imported by tracing-sdk.ts, which loads before everything else: this file must import nothing.

/** What a secret part of a URL is written as in logs and traces. */
export const REDACTED = '[redacted]';

/** A route parameter or query parameter whose value is a credential (an inbound URL's `:token`, an answer link's). */
const SECRET_NAME = /token|secret|signature|password|api[-_]?key/i;

/**
 * A path segment this long is taken for a credential wherever it appears (a mistyped method or
 * path still carries an inbound URL's 43-character token). Ids (UUIDs: 36) are shorter.
 */
const SECRET_SEGMENT_LENGTH = 40;

/**
 * The URL as logs and traces show it: path segments that a secret route parameter matched
 * (`routePattern`, e.g. `/hooks/:trigger_id/:token`), path segments of 40 characters or more,
 * and the values of query parameters with secret names are each replaced by [redacted].
 */
export function loggableUrl(url: string, routePattern?: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? undefined : url.slice(queryAt + 1);
  return loggablePath(path, routePattern) + (query === undefined ? '' : `?${loggableQuery(query)}`);
}

export function loggablePath(path: string, routePattern?: string): string {
  const segments = path.split('/');
  const names = routePattern?.split('/');
  const aligned = names !== undefined && names.length === segments.length;
  return segments
    .map((segment, i) => {
      const secretParameter = aligned && names[i].startsWith(':') && SECRET_NAME.test(names[i]);
      return secretParameter || segment.length >= SECRET_SEGMENT_LENGTH ? REDACTED : segment;
    })
    .join('/');
}

export function loggableQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      return SECRET_NAME.test(name) || value.length >= SECRET_SEGMENT_LENGTH ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}
