import * as contracts from '@aas/contracts';
import { writeFileSync } from 'node:fs';
import { expectProblem, http } from '../support/http';
import { TestSystem } from '../support/test-system';
import { freshUser } from '../support/test-users';
import { ApiOperation, labelOf, operationsOf } from './support/api-operations';
import { FuzzCase, Fixtures, OperationCases } from './support/case-generator';
import { describeViolations, runCases, summary } from './support/fuzz-runner';
import { hostileInboundBodies, hostileTemplates } from './support/hostile-inbound';
import { RawHttpClient } from './support/raw-http';
import { SeededRandom } from './support/seeded-random';
import { eventually } from '../support/eventually';

/*
 * Issue #9, hostile input: thousands of generated malformed requests to every
 * endpoint of the OpenAPI document, each answer checked: never a 5xx, the
 * status that is right for what was sent, and a Problem Details body on every
 * error. Every case of the catalogue (test/fuzz/support/case-generator.ts) is
 * sent, plus FUZZ_RANDOM_CASES_PER_OPERATION random ones per operation.
 *
 *   FUZZ_SEED=<n>                  replays a run (the seed is printed at the start and on failure)
 *   FUZZ_CASES_PER_OPERATION=<n>   samples at most n cases per operation (a shorter run)
 *   FUZZ_CONCURRENCY=<n>           requests in flight (default 12)
 *   FUZZ_REPORT_FILE=<path>        writes every bad answer there, not only the first 25
 *   FUZZ_PRINT_CATALOGUE=1         prints the number of cases per operation
 */

const KEY = 'fuzz-bootstrap-key-0123456789abcdef';
const BODY_LIMIT_BYTES = 1024 * 1024;
/** The payload a triggered run keeps (scheduler-service's TRIGGER_PAYLOAD_MAX_BYTES, its default): a larger inbound body is a 413. */
const PAYLOAD_MAX_BYTES = 256 * 1024;
/** The spec's 24 paths (36 operations); a new endpoint is fuzzed without changing this file. */
const MIN_PATHS = 24;
const MIN_OPERATIONS = 36;
const CASES_PER_OPERATION = Number(process.env.FUZZ_CASES_PER_OPERATION ?? Infinity);
const RANDOM_CASES_PER_OPERATION = Number(process.env.FUZZ_RANDOM_CASES_PER_OPERATION ?? 50);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 12);
/** The gateway under fuzz: its body limit known here, and no per-user rate limit hiding the answers behind 429s. */
/**
 * Sign-in limits stay on: a sign-in or setup attempt hashes a password (scrypt, ~150 ms of CPU), and the
 * limits are what keep many such requests cheap. Bodies are validated before the limit counts them.
 */
const FUZZ_GATEWAY_ENV: Record<string, string> = { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES), RATE_LIMIT_REQUESTS: '0' };


describe('Hostile input to every endpoint (fuzz)', () => {
  const seed = SeededRandom.seedFromEnv();
  let system: TestSystem;
  let base: string;
  let fixtures: Fixtures;
  let operations: ApiOperation[];

  beforeAll(async () => {
    process.stdout.write(`hostile-input fuzz: seed ${seed} (replay with FUZZ_SEED=${seed})\n`);
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      gatewayEnv: FUZZ_GATEWAY_ENV,
      // Runs the fuzz starts finish fast and few at a time, leaving the cores to the requests.
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '1', RUN_WORKER_CONCURRENCY: '4' },
      schedulerEnv: { TRIGGER_PAYLOAD_MAX_BYTES: String(PAYLOAD_MAX_BYTES) },
    });
    base = system.url();
    fixtures = await createFixtures();
    operations = operationsOf((await http(base, 'GET', '/openapi.json')).body);
  }, 60_000);
  afterAll(() => system?.stop());

  async function post(path: string, body: unknown, key = KEY): Promise<any> {
    const res = await http(base, 'POST', path, { key, body });
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Real resources of the bootstrap user, and a second user whose key must never reach them. */
  async function createFixtures(): Promise<Fixtures> {
    const agentId = (await post('/v1/agents', {})).agent.agent_id;
    const webhookAgentId = (await post('/v1/agents', {})).agent.agent_id;
    const instructionsAgentId = (await post('/v1/agents', {})).agent.agent_id;
    await post(`/v1/agents/${agentId}/runs`, { run_mode: 'build' });
    await eventually(
      'the agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    const runId = (await post(`/v1/agents/${agentId}/runs`, { user_message: 'fixture' })).run.run_id;
    await eventually(
      'the run finished',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run.is_finished,
      (finished) => finished === true,
    );
    const webhookId = (await post(`/v1/agents/${webhookAgentId}/webhooks`, { url: 'https://hooks.example.com/fuzz', events: ['run.completed'] }))
      .webhook_id;
    const scheduled = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '0 0 0 1 1 ? 2099' } });
    expect(scheduled.status).toBe(200);
    const workspaceId = (await post('/v1/workspaces', { name: 'fuzz' })).workspace.workspace_id;
    const triggerId = (await post(`/v1/agents/${agentId}/triggers`, { kind: 'webhook', name: 'fuzz' })).trigger_id;
    const keys = (await http(base, 'GET', '/api/public/v1/access-api-keys', { key: KEY })).body.keys;
    expect(keys).toHaveLength(1);
    const other = await freshUser(system, 'fuzz-other');
    return {
      key: KEY,
      keyId: keys[0].key_id,
      otherUserKey: other.key,
      ids: { agent_id: agentId, run_id: runId, webhook_id: webhookId, workspace_id: workspaceId, trigger_id: triggerId },
      agentFor: (path) => (path.includes('/webhooks') ? webhookAgentId : path.includes('/instructions') ? instructionsAgentId : agentId),
      validBodies: {
        CreateApiKeyRequest: () => ({ name: 'fuzz' }),
        CreateAgentRequest: () => ({}),
        MoveAgentRequest: () => ({ workspace_id: workspaceId }),
        UpdateAgentRequest: () => ({ agent_name: { name: 'fuzz', explanation: null } }),
        CreateWorkspaceRequest: () => ({ name: 'fuzz' }),
        UpdateWorkspaceRequest: () => ({ name: 'fuzz' }),
        ReorderWorkspacesRequest: () => ({ workspace_ids: [workspaceId] }),
        PutInstructionsRequest: () => ({ content: 'fuzz', plan_steps: [{ title: 't', description: 'd', tools: ['x'], order: 0 }] }),
        StartRunRequest: () => ({}),
        CancelRunRequest: () => ({}),
        ReplayRunRequest: () => ({ instructions: 'current' }),
        // No fixture run waits for input (request_id is random): a valid answer meets a 404.
        AnswerInputRequestBody: () => ({ answer: 'approve' }),
        // The fixture run has finished: a cancel of it is skipped, and the action completes.
        CreateBulkActionRequest: () => ({ action: 'cancel', run_ids: [runId] }),
        // The fixtures' runtime reports no usage, so whatever budget a case sets never binds the other cases' runs.
        PutBudgetRequest: () => ({ daily_credits: 1000, monthly_credits: null }),
        PutScheduleRequest: () => ({ cron: '0 0 0 1 1 ? 2099' }),
        CreateTriggerRequest: () => ({ kind: 'webhook' }),
        UpdateTriggerRequest: () => ({}),
        BackfillScheduleRequest: () => ({ from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }),
        CreateWebhookRequest: () => ({ url: 'https://hooks.example.com/fuzz', events: ['run.completed'] }),
        UpdateWebhookRequest: () => ({}),
        SendTestEventRequest: () => ({}),
        RedeliverSinceRequest: () => ({ since: '2026-01-01T00:00:00Z' }),
        PreviewScheduleRequest: () => ({ cron: '0 0 9 ? * MON-FRI *', timezone: 'Europe/Berlin' }),
        // No user can sign in (the bootstrap user has no password), so setup is open, but this token is not the one.
        ConsoleSetupRequest: () => ({ setup_token: 'aas_setup_not-the-token', email: 'fuzz@example.test', password: 'fuzz password 123' }),
        ConsoleLoginRequest: () => ({ email: 'fuzz@example.test', password: 'fuzz password 123' }),
      },
      outcomes: {
        'POST /v1/console/setup': [401],
        'POST /v1/console/login': [401],
        'GET /v1/console/session': [401],
        // A fuzzed PATCH may have disabled the fixture webhook meanwhile: its failed deliveries are then a 409.
        'POST /v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries/redeliver': [202, 409],
      },
    };
  }

  function generate(rngSeed: number, randomCases = RANDOM_CASES_PER_OPERATION): FuzzCase[] {
    const rng = new SeededRandom(rngSeed);
    const classes = Object.entries(contracts as Record<string, unknown>).filter((e): e is [string, Function] => typeof e[1] === 'function');
    const options = {
      bodyLimitBytes: BODY_LIMIT_BYTES,
      maxCasesPerOperation: CASES_PER_OPERATION,
      randomCasesPerOperation: randomCases,
      dtoClasses: Object.fromEntries(classes),
      queryClasses: classes.filter(([name]) => name.endsWith('Query')).map(([, dto]) => dto),
    };
    const cases = operations.flatMap((op) => new OperationCases(op, fixtures, rng, options).generate());
    if (process.env.FUZZ_PRINT_CATALOGUE) {
      const byOp = new Map<string, number>();
      for (const c of cases) byOp.set(c.op, (byOp.get(c.op) ?? 0) + 1);
      process.stdout.write(`catalogue: ${cases.length} ${JSON.stringify([...byOp])}\n`);
    }
    // Interleaved, so every service is under load at once.
    return rng.sample(cases, cases.length);
  }

  it('reads every endpoint from the OpenAPI document', () => {
    const paths = new Set(operations.map((op) => op.path));
    expect(paths.size).toBeGreaterThanOrEqual(MIN_PATHS);
    expect(operations.length).toBeGreaterThanOrEqual(MIN_OPERATIONS);
    for (const path of ['/v1/agents/{agent_id}/runs/{run_id}/events', '/api/public/v1/access-api-keys/{key_id}', '/v1/workspaces/reorder']) {
      expect(paths).toContain(path);
    }
  });

  it('generates the same cases from the same seed', () => {
    const render = (cases: FuzzCase[]) => cases.map((c) => `${c.op} ${c.category} ${c.mutation} ${c.expected.join()}`).join('\n');
    expect(render(generate(seed, 5))).toBe(render(generate(seed, 5)));
    expect(render(generate(seed, 5))).not.toBe(render(generate(seed + 1, 5)));
  });

  it('takes hostile bodies at a real inbound endpoint and hostile templates at trigger creation: a right 4xx or 2xx, no 5xx, nothing stalls', async () => {
    // The endpoint renders its payload and headers, so every body that is taken is rendered too; a second one holds a template bomb.
    const agentId = fixtures.ids.agent_id;
    const created = await Promise.all(
      ['{{#payload}}{{.}}{{/payload}} {{payload.a}} {{headers.x-fuzz}} {{headers.x-hub-signature-256}}', `${'{{#payload.a}}'.repeat(300)}x${'{{/payload.a}}'.repeat(300)}`].map(
        (message_template) => post(`/v1/agents/${agentId}/triggers`, { kind: 'webhook', name: 'fuzz-inbound', message_template }),
      ),
    );
    const templateAgent = (await post('/v1/agents', {})).agent.agent_id;
    const cases = [
      ...created.flatMap((trigger) => hostileInboundBodies(new URL(trigger.url).pathname, BODY_LIMIT_BYTES, PAYLOAD_MAX_BYTES)),
      ...hostileTemplates(`/v1/agents/${templateAgent}/triggers`, KEY),
    ];
    const client = new RawHttpClient(new URL(base), 4, 20_000);
    const { violations, stats } = await runCases(client, cases, 4).finally(() => client.close());
    if (violations.length > 0) throw new Error(describeViolations(seed, violations));
    expect(stats.total).toBe(cases.length);
    expect(stats.byStatus.get(202)).toBeGreaterThan(20);
    expect((await http(base, 'GET', '/readyz/deep')).status).toBe(200);
  }, 120_000);

  it('answers thousands of hostile requests with a right 4xx (or a 2xx) and Problem Details, never a 5xx', async () => {
    const cases = generate(seed);
    const client = new RawHttpClient(new URL(base), CONCURRENCY, 20_000);
    const { violations, stats } = await runCases(client, cases, CONCURRENCY).finally(() => client.close());
    process.stdout.write(`${summary(seed, stats)}\n`);

    if (process.env.FUZZ_REPORT_FILE) writeFileSync(process.env.FUZZ_REPORT_FILE, describeViolations(seed, violations, Infinity));
    if (violations.length > 0) throw new Error(describeViolations(seed, violations));
    expect(stats.total).toBe(cases.length);
    // Thousands by default; a run sampled down with FUZZ_CASES_PER_OPERATION is as long as asked.
    if (CASES_PER_OPERATION === Infinity) expect(stats.total).toBeGreaterThanOrEqual(3000);
    for (const op of operations) {
      const answered = [...(stats.byOperation.get(labelOf(op))?.values() ?? [])].reduce((a, b) => a + b, 0);
      expect({ op: labelOf(op), enough: answered >= Math.min(40, CASES_PER_OPERATION) }).toEqual({ op: labelOf(op), enough: true });
    }
    for (const category of ['auth', 'path-id', 'tenant', 'query', 'bad-json', 'media-type', 'size', 'deep-json', 'body-field', 'unicode', 'header', 'method', 'random']) {
      expect({ category, sent: (stats.byCategory.get(category) ?? 0) > 0 }).toEqual({ category, sent: true });
    }
    // Rate limiting must not have hidden the answers (set its limits in FUZZ_GATEWAY_ENV).
    expect(stats.byStatus.get(429) ?? 0).toBeLessThan(stats.total / 20);
  }, 300_000); // about 1 min on a quiet machine; several on a loaded one (about 12,000 requests)

  it('is still whole afterwards: ready, the key works, the fixtures are there, another user sees none of them', async () => {
    expect((await http(base, 'GET', '/readyz')).status).toBe(200);
    expect((await http(base, 'GET', '/v1/me', { key: KEY })).status).toBe(200);
    const agentId = fixtures.ids.agent_id;
    expect((await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).status).toBe(200);
    expect((await http(base, 'GET', `/v1/agents/${agentId}/runs/${fixtures.ids.run_id}`, { key: KEY })).status).toBe(200);
    expect((await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body.schedule).not.toBeNull();
    const webhookAgent = fixtures.agentFor('/webhooks');
    expect((await http(base, 'GET', `/v1/agents/${webhookAgent}/webhooks/${fixtures.ids.webhook_id}`, { key: KEY })).status).toBe(200);
    const workspaces = (await http(base, 'GET', '/v1/workspaces', { key: KEY })).body.workspaces;
    expect(workspaces.map((w: { workspace_id: string }) => w.workspace_id)).toContain(fixtures.ids.workspace_id);
    expect((await http(base, 'GET', '/api/public/v1/access-api-keys', { key: KEY })).body.keys.map((k: { key_id: string }) => k.key_id)).toContain(
      fixtures.keyId,
    );
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}`, { key: fixtures.otherUserKey }), 404);
    const theirs = await http(base, 'GET', '/v1/agents', { key: fixtures.otherUserKey });
    expect(theirs.body.agents).toEqual([]);
  });
});
