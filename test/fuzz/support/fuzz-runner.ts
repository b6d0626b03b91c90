import { STATUS_CODES } from 'node:http';
import { FuzzCase } from './case-generator';
import { RawHttpClient, RawRequest, RawResponse } from './raw-http';

const PROBLEM_TYPE = /^(urn:aas:problem:[a-z-]+|about:blank)$/;
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** What a leaked stack trace or database error looks like in a body. */
const LEAKS = [
  /\n\s+at /,
  /\bat .+\.(ts|js):\d+/,
  /node_modules/,
  /QueryFailedError|TypeORMError|EntityNotFound/,
  /syntax error at or near|invalid input syntax|out of range for type|violates .* constraint|relation ".*" does not exist/,
  /RangeError|TypeError|ReferenceError|Maximum call stack/,
];

/**
 * A creation the fuzz repeats thousands of times may reach its owner's quota (webhooks per agent,
 * workspaces per user): that 422 is a right answer to a valid request, like a 429.
 */
function isQuotaExceeded(res: RawResponse): boolean {
  return res.status === 422 && res.body.toString('utf8').includes('"urn:aas:problem:quota-exceeded"');
}

/** Everything wrong with one answer; empty when it is right. */
export function problemsWith(c: FuzzCase, res: RawResponse): string[] {
  const problems: string[] = [];
  const status = res.status;
  if (status >= 500) problems.push(`a ${status}`);
  else if (!c.expected.includes(status) && status !== 429 && !isQuotaExceeded(res)) {
    problems.push(`status ${status}, expected ${c.expected.join(' or ')}`);
  }
  if (c.maxMs !== undefined && res.ms > c.maxMs) problems.push(`an answer after ${res.ms} ms, more than ${c.maxMs}`);
  const requestId = res.headers['x-request-id'];
  if (typeof requestId !== 'string' || !SANE_REQUEST_ID.test(requestId)) problems.push(`x-request-id ${JSON.stringify(requestId)}`);
  const type = String(res.headers['content-type'] ?? '');
  const text = res.body.toString('utf8');
  if (status === 429 && res.headers['retry-after'] === undefined) problems.push('a 429 without Retry-After');
  if (status >= 200 && status < 300) {
    if (status === 204 && res.body.length > 0) problems.push('a 204 with a body');
    if (type.startsWith('application/json')) {
      try {
        JSON.parse(text);
      } catch {
        problems.push('a 2xx JSON answer that does not parse');
      }
    }
    if (status !== 204 && !type.startsWith('application/json') && !type.startsWith('text/event-stream')) problems.push(`a 2xx with content-type ${type}`);
    return problems;
  }
  if (!type.startsWith('application/problem+json')) problems.push(`content-type ${JSON.stringify(type)} instead of application/problem+json`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    problems.push('a body that is not JSON');
    return problems;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    problems.push('a body that is not an object');
    return problems;
  }
  if (typeof body.type !== 'string' || !PROBLEM_TYPE.test(body.type)) problems.push(`type ${JSON.stringify(body.type)}`);
  if (body.title !== STATUS_CODES[status]) problems.push(`title ${JSON.stringify(body.title)} for a ${status}`);
  if (body.status !== status) problems.push(`status member ${JSON.stringify(body.status)} on a ${status}`);
  if (typeof body.detail !== 'string' || body.detail.length === 0) problems.push('no detail');
  if (body.request_id !== requestId) problems.push(`request_id ${JSON.stringify(body.request_id)} is not the x-request-id`);
  if ('stack' in body) problems.push('a stack member');
  for (const leak of LEAKS) if (leak.test(text)) problems.push(`a body that leaks internals (${leak.source})`);
  return problems;
}

export interface Violation {
  index: number;
  fuzzCase: FuzzCase;
  request: RawRequest;
  problems: string[];
  status?: number;
  body?: string;
}

export interface FuzzStats {
  total: number;
  ms: number;
  byOperation: Map<string, Map<number, number>>;
  byCategory: Map<string, number>;
  byStatus: Map<number, number>;
}

/** Sends every case (`concurrency` at a time) and checks each answer. */
export async function runCases(
  client: RawHttpClient,
  cases: FuzzCase[],
  concurrency: number,
): Promise<{ violations: Violation[]; stats: FuzzStats }> {
  const started = Date.now();
  const violations: Violation[] = [];
  const stats: FuzzStats = { total: 0, ms: 0, byOperation: new Map(), byCategory: new Map(), byStatus: new Map() };
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index];
      const request = c.build();
      let res: RawResponse;
      try {
        res = await client.send(request);
      } catch (error) {
        violations.push({ index, fuzzCase: c, request, problems: [`no answer: ${(error as Error).message}`] });
        continue;
      }
      stats.total++;
      const ops = stats.byOperation.get(c.op) ?? new Map<number, number>();
      ops.set(res.status, (ops.get(res.status) ?? 0) + 1);
      stats.byOperation.set(c.op, ops);
      stats.byCategory.set(c.category, (stats.byCategory.get(c.category) ?? 0) + 1);
      stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
      const problems = problemsWith(c, res);
      if (problems.length > 0) violations.push({ index, fuzzCase: c, request, problems, status: res.status, body: res.body.toString('utf8') });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  stats.ms = Date.now() - started;
  return { violations, stats };
}

export function summary(seed: number, stats: FuzzStats): string {
  const statuses = (m: Map<number, number>) => [...m.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
  const lines = [
    `hostile-input fuzz, seed ${seed}: ${stats.total} requests in ${(stats.ms / 1000).toFixed(1)} s (${Math.round((stats.total * 1000) / Math.max(1, stats.ms))}/s)`,
    `  statuses: ${statuses(stats.byStatus)}`,
    `  categories: ${[...stats.byCategory.entries()].sort().map(([c, n]) => `${c} ${n}`).join(', ')}`,
    '  per endpoint:',
  ];
  const width = Math.max(...[...stats.byOperation.keys()].map((k) => k.length));
  for (const [op, m] of [...stats.byOperation.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const count = [...m.values()].reduce((a, b) => a + b, 0);
    lines.push(`    ${op.padEnd(width)} ${String(count).padStart(5)}  ${statuses(m)}`);
  }
  return lines.join('\n');
}

/** The failure message: what was sent and what came back, with the seed that replays it. */
export function describeViolations(seed: number, violations: Violation[], limit = 25): string {
  const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
  const lines = [`${violations.length} bad answer(s). Replay with FUZZ_SEED=${seed} npx jest test/fuzz`];
  for (const v of violations.slice(0, limit)) {
    const r = v.request;
    const body = r.chunkedBytes !== undefined ? `<${r.chunkedBytes} bytes chunked>` : r.body === undefined ? '<none>' : clip(JSON.stringify(r.body.toString('utf8')));
    const headers = Object.fromEntries(Object.entries(r.headers).map(([k, val]) => [k, k === 'x-api-key' ? clip(val, 60) : clip(val, 120)]));
    lines.push(
      `#${v.index} ${v.fuzzCase.op} [${v.fuzzCase.category}] ${v.fuzzCase.mutation}: ${v.problems.join('; ')}`,
      `    sent ${r.method} ${clip(r.path, 200)} headers ${JSON.stringify(headers)} body ${body}`,
      `    got ${v.status ?? '-'} ${clip(JSON.stringify(v.body ?? ''))}`,
    );
  }
  if (violations.length > limit) lines.push(`… and ${violations.length - limit} more`);
  return lines.join('\n');
}
