import { STATUS_CODES } from 'node:http';

/** RFC 9457 body. Extension members (`errors`, `quota`, `limit`, `request_id`) are optional. */
export interface ProblemDetail {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  /** Which quota a quota-exceeded problem hit (e.g. `api_keys_per_user`). */
  quota?: string;
  /** That quota's value. */
  limit?: number;
  /** A 429's Retry-After, in seconds, while the problem crosses the message transport; sent as the header, not in the body. */
  retry_after?: number;
  request_id?: string;
}

export interface FieldError {
  field: string;
  message: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

export function isProblemDetail(value: unknown): value is ProblemDetail {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.type === 'string' &&
    typeof v.status === 'number' &&
    typeof v.title === 'string' &&
    typeof v.detail === 'string'
  );
}
