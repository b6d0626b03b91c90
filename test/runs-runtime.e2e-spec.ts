import { INestApplication } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { startRunsService } from '../apps/runs-service/src/runs-service.app';
import { RunsService } from '../apps/runs-service/src/runs/runs.service';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { Reply, TestRuntime, hang, lines } from './support/test-runtime';
import { TestSystem } from './support/test-system';

const KEY = 'runs-runtime-bootstrap-key-0123456789';
const SECRET = 'runtime-secret-0123456789abcdef!';
const RUNTIME_ENV = { AGENT_RUNTIME_SECRET: SECRET, RUN_PAUSE_AFTER_MS: '300', RUN_TIMEOUT_MS: '3000' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise the test resolves to let a runtime script go on. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('Runs through an external agent runtime (runtime-protocol.md)', () => {
  let runtime: TestRuntime;
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { AGENT_RUNTIME_URL: runtime.url, ...RUNTIME_ENV } });
    base = system.url();
  });
  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
  });

  const newAgent = async (url = base) => (await http(url, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;

  async function startRun(agentId: string, userMessage: string, extra: object = {}, url = base): Promise<string> {
    const res = await http(url, 'POST', `/v1/agents/${agentId}/runs`, {
      key: KEY,
      body: { user_message: userMessage, skip_deploy_check: true, ...extra },
    });
    expect(res.status).toBe(201);
    return res.body.run.run_id;
  }

  const getRun = async (agentId: string, runId: string, url = base) =>
    (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;
  const getAgent = async (agentId: string) => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent;
  const getEvents = async (agentId: string, runId: string, url = base): Promise<Record<string, any>[]> =>
    (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events.map(
      (e: { event: object }) => e.event,
    );

  /** Polls `read` until `ok`, for at most `timeoutMs`, then fails saying what was awaited and what was last seen. */
  const finished = (agentId: string, runId: string, url = base) =>
    eventually(`run ${runId} to finish`, () => getRun(agentId, runId, url), (run) => run.is_finished === true);

  /** Runs `script` for a fresh agent's run and returns the finished run with its events. */
  async function runToEnd(name: string, script: Parameters<TestRuntime['script']>[1]) {
    const agentId = await newAgent();
    const runId = await startRun(agentId, runtime.script(name, script));
    const run = await finished(agentId, runId);
    return { agentId, runId, run, events: await getEvents(agentId, runId) };
  }

  describe('dispatch', () => {
    it('POSTs a signed JSON body describing the run and asks for NDJSON', async () => {
      const agentId = await newAgent();
      const message = runtime.script('dispatch: no instructions', lines({ type: 'completed', outcome: 'success' }));
      const runId = await startRun(agentId, message);
      await finished(agentId, runId);

      const [dispatch] = runtime.dispatchesFor(runId);
      expect(runtime.dispatchesFor(runId)).toHaveLength(1);
      expect(dispatch.method).toBe('POST');
      expect(dispatch.headers['content-type']).toBe('application/json');
      expect(dispatch.headers.accept).toBe('application/x-ndjson');
      expect(dispatch.headers['x-run-id']).toBe(runId);
      const expected = 'sha256=' + createHmac('sha256', SECRET).update(dispatch.rawBody, 'utf8').digest('hex');
      expect(dispatch.headers['x-service-signature']).toBe(expected);
      expect(dispatch.body).toEqual({
        run_id: runId,
        agent_id: agentId,
        run_number: 1,
        run_mode: 'run',
        user_message: message,
        trigger_kind: 'api',
        instructions: null,
        protocol_version: 3,
        scheduled_for: null,
        deadline_at: expect.any(String),
      });
      const deadline = Date.parse(dispatch.body.deadline_at as string);
      expect(deadline - Date.now()).toBeGreaterThan(0);
    });

    it('carries the agent instructions once they are set, and the build mode', async () => {
      const agentId = await newAgent();
      const steps = [0, 1].map((order) => ({ title: `s${order}`, description: 'd', tools: [], order }));
      const put = await http(base, 'PUT', `/v1/agents/${agentId}/instructions`, { key: KEY, body: { content: 'do it', plan_steps: steps } });
      expect(put.status).toBe(200);
      const message = runtime.script('dispatch: with instructions', lines({ type: 'completed', outcome: 'partial' }));
      const runId = await startRun(agentId, message, { run_mode: 'build' });
      await finished(agentId, runId);

      const [dispatch] = runtime.dispatchesFor(runId);
      expect(dispatch.body).toMatchObject({ run_id: runId, run_number: 1, run_mode: 'build', trigger_kind: 'api' });
      expect(dispatch.body.instructions).toEqual({ content: 'do it', plan_steps: steps });
      expect(dispatch.headers['x-service-signature']).toBe(
        'sha256=' + createHmac('sha256', SECRET).update(dispatch.rawBody, 'utf8').digest('hex'),
      );
    });

    it('sends plan_steps as an empty array for instructions that have no steps', async () => {
      const agentId = await newAgent();
      const put = await http(base, 'PUT', `/v1/agents/${agentId}/instructions`, { key: KEY, body: { content: 'no steps' } });
      expect(put.status).toBe(200);
      const runId = await startRun(agentId, runtime.script('dispatch: no steps', lines({ type: 'completed', outcome: 'success' })));
      await finished(agentId, runId);

      const [dispatch] = runtime.dispatchesFor(runId);
      expect(dispatch.body.instructions).toEqual({ content: 'no steps', plan_steps: [] });
      expect(dispatch.rawBody).toContain('"plan_steps":[]');
    });
  });

  describe('lines', () => {
    it.each(['success', 'partial', 'fail'])('completes with outcome %s, recording every line as {type: rest}', async (outcome) => {
      const text = `hello from ${outcome}`;
      const { agentId, runId, run, events } = await runToEnd(
        `outcome ${outcome}`,
        lines(
          { type: 'step', title: 'x' },
          { type: 'message', text },
          { type: 'thinking', depth: 2, note: { a: [1] } },
          { type: 'completed', outcome, summary: `done ${outcome}` },
        ),
      );
      expect(run).toMatchObject({ status: 'completed', is_finished: true, is_paused: false, step_count: 1, event_count: 5 });
      expect(typeof run.finished_at).toBe('string');
      expect(events).toEqual([
        { started: {} },
        { step: { title: 'x' } },
        { message: { text } },
        { thinking: { depth: 2, note: { a: [1] } } },
        { completed: { outcome, summary: `done ${outcome}` } },
      ]);
      const list = await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY });
      expect(list.body.all_run_summaries).toEqual([expect.objectContaining({ run_id: runId, outcome, is_finished: true })]);
      await eventually(`agent ${agentId} to show the last chat message`, () => getAgent(agentId), (a) => a.last_chat_message === text);
    });

    it('a failed line ends the run in error', async () => {
      const { run, events } = await runToEnd('failed line', lines({ type: 'step', title: 'a' }, { type: 'failed', error: 'boom' }));
      expect(run).toMatchObject({ status: 'error', is_finished: true, step_count: 1 });
      expect(typeof run.finished_at).toBe('string');
      expect(events[events.length - 1]).toEqual({ failed: { error: 'boom' } });
    });

    it('ignores lines that arrive after the run is finished', async () => {
      const { agentId, runId, run, events } = await runToEnd(
        'lines after completed',
        hang(
          { type: 'step', title: 'a' },
          { type: 'completed', outcome: 'success' },
          { type: 'step', title: 'late' },
          { type: 'message', text: 'late' },
          50,
          { type: 'failed', error: 'late' },
          { type: 'step', title: 'later' },
        ),
      );
      expect(events).toEqual([{ started: {} }, { step: { title: 'a' } }, { completed: { outcome: 'success' } }]);
      await sleep(300);
      expect(await getRun(agentId, runId)).toMatchObject({ status: 'completed', event_count: 3, step_count: 1 });
      expect(run.event_count).toBe(3);
      expect(await getEvents(agentId, runId)).toHaveLength(3);
    });
  });

  describe('failure modes end the run in error with a final failed event', () => {
    async function expectFailed(run: any, events: Record<string, any>[], reason: RegExp): Promise<void> {
      expect(run).toMatchObject({ status: 'error', is_finished: true, is_paused: false });
      expect(typeof run.finished_at).toBe('string');
      const last = events[events.length - 1];
      expect(Object.keys(last)).toEqual(['failed']);
      expect(last.failed.error).toMatch(reason);
      expect(run.event_count).toBe(events.length);
    }

    it('the runtime drops the connection without answering', async () => {
      const { run, events } = await runToEnd('drop', (reply) => reply.destroy());
      await expectFailed(run, events, /could not be reached/);
      expect(events).toHaveLength(2);
    });

    it('the runtime answers a non-2xx status', async () => {
      const { run, events } = await runToEnd('http 500', (reply) => reply.status(500, 'kaput'));
      await expectFailed(run, events, /HTTP 500/);
    });

    it('the runtime sends a line that is not JSON', async () => {
      const { run, events } = await runToEnd('garbage', lines({ type: 'step', title: 'a' }, 'this is {not json'));
      await expectFailed(run, events, /not JSON/);
      expect(events.slice(0, 2)).toEqual([{ started: {} }, { step: { title: 'a' } }]);
      expect(run.step_count).toBe(1);
    });

    it.each([
      ['a number type', '{"type":5}'],
      ['no type', '{"kind":"step"}'],
      ['an array', '["step"]'],
      ['a string', '"step"'],
      ['null', 'null'],
    ])('the runtime sends a JSON line with %s', async (label, line) => {
      const { run, events } = await runToEnd(`bad line: ${label}`, lines(line));
      await expectFailed(run, events, /not a JSON object with a string type/);
      expect(events).toHaveLength(2);
    });

    it('the runtime closes the stream without a terminal line', async () => {
      const { run, events } = await runToEnd('no terminal', lines({ type: 'step', title: 'a' }));
      await expectFailed(run, events, /without a terminal line/);
      expect(run.step_count).toBe(1);
    });

    it('the run runs past RUN_TIMEOUT_MS, and the runtime sees its connection closed', async () => {
      const startedAt = Date.now();
      const { runId, run, events } = await runToEnd('timeout', hang({ type: 'step', title: 'a' }));
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2900);
      await expectFailed(run, events, /RUN_TIMEOUT_MS \(3000 ms\)/);
      await runtime.connectionClosed(runId);
    });

    it('the runtime cannot be reached', async () => {
      const unreachable = await TestSystem.start({
        bootstrapApiKey: KEY,
        runsEnv: { AGENT_RUNTIME_URL: 'http://127.0.0.1:1', ...RUNTIME_ENV },
      });
      try {
        const url = unreachable.url();
        const agentId = await newAgent(url);
        const runId = await startRun(agentId, 'unreachable', {}, url);
        const run = await finished(agentId, runId, url);
        const events = await getEvents(agentId, runId, url);
        await expectFailed(run, events, /could not be reached/);
        expect(events).toHaveLength(2);
      } finally {
        await unreachable.stop();
      }
    });
  });

  describe('pause', () => {
    it('a paused line pauses the run at once, and a resumed line resumes it', async () => {
      const resume = gate();
      const complete = gate();
      const agentId = await newAgent();
      const runId = await startRun(
        agentId,
        runtime.script('paused then resumed', async (reply) => {
          reply.line({ type: 'step', title: 'a' });
          reply.line({ type: 'paused' });
          await resume.wait;
          reply.line({ type: 'resumed' });
          await complete.wait;
          reply.line({ type: 'completed', outcome: 'success' });
          reply.end();
        }),
      );
      try {
        await eventually('the run to be paused', () => getRun(agentId, runId), (r) => r.status === 'paused' && r.is_paused === true);
        const list = await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY });
        expect(list.body.all_run_summaries[0]).toMatchObject({ run_id: runId, is_paused: true, is_finished: false });
        resume.open();
        const resumed = await eventually('the run to resume', () => getRun(agentId, runId), (r) => r.status === 'in_progress');
        expect(resumed).toMatchObject({ is_paused: false, is_finished: false });
        complete.open();
        expect(await finished(agentId, runId)).toMatchObject({ status: 'completed', is_paused: false });
        expect(await getEvents(agentId, runId)).toEqual([
          { started: {} },
          { step: { title: 'a' } },
          { paused: {} },
          { resumed: {} },
          { completed: { outcome: 'success' } },
        ]);
      } finally {
        resume.open();
        complete.open();
      }
    });

    it('waiting for input longer than RUN_PAUSE_AFTER_MS pauses the run', async () => {
      const complete = gate();
      const agentId = await newAgent();
      const startedAt = Date.now();
      const runId = await startRun(
        agentId,
        runtime.script('waiting for input', async (reply) => {
          reply.line({ type: 'waiting_for_input', question: 'which one?' });
          await complete.wait;
          reply.line({ type: 'completed', outcome: 'success' });
          reply.end();
        }),
      );
      try {
        await eventually('the agent to show pending input', () => getAgent(agentId), (a) => a.latest_run_has_pending_input === true);
        const paused = await eventually('the run to be paused', () => getRun(agentId, runId), (r) => r.status === 'paused');
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(300);
        expect(paused).toMatchObject({ is_paused: true, is_finished: false });
        expect(await getEvents(agentId, runId)).toEqual([{ started: {} }, { waiting_for_input: { question: 'which one?' } }, { paused: {} }]);
        complete.open();
        expect(await finished(agentId, runId)).toMatchObject({ status: 'completed', is_paused: false });
      } finally {
        complete.open();
      }
    });

    it('input that arrives within RUN_PAUSE_AFTER_MS does not pause the run', async () => {
      const { run, events } = await runToEnd(
        'waiting briefly',
        lines({ type: 'waiting_for_input' }, 100, { type: 'step', title: 'answered' }, 400, { type: 'completed', outcome: 'success' }),
      );
      expect(run).toMatchObject({ status: 'completed', step_count: 1 });
      expect(events.map((e) => Object.keys(e)[0])).toEqual(['started', 'waiting_for_input', 'step', 'completed']);
    });
  });

  describe('cancel with two runs-service replicas', () => {
    const REPLICA_2 = '/replica-2';
    let second: INestApplication;

    beforeAll(async () => {
      second = await startRunsService({ ...system.baseEnv(), AGENT_RUNTIME_URL: `${runtime.url}${REPLICA_2}`, ...RUNTIME_ENV });
    });
    afterAll(() => second?.close());

    /** Starts a run whose runtime hangs after one step and tries a late line once its connection is closed. */
    async function hangingRun(name: string) {
      const agentId = await newAgent();
      const runId = await startRun(
        agentId,
        runtime.script(name, async (reply: Reply) => {
          reply.line({ type: 'step', title: 'working' });
          await reply.closed;
          reply.line({ type: 'step', title: 'late' });
        }),
      );
      await eventually('the step to be recorded', () => getRun(agentId, runId), (r) => r.step_count === 1);
      return { agentId, runId };
    }

    async function expectStoppedAndAborted(agentId: string, runId: string, reason: string): Promise<void> {
      expect(await getRun(agentId, runId)).toMatchObject({ status: 'stopped', is_finished: true, event_count: 3 });
      await runtime.connectionClosed(runId, 5000);
      await sleep(300);
      const run = await getRun(agentId, runId);
      expect(run).toMatchObject({ status: 'stopped', event_count: 3, step_count: 1 });
      expect(await getEvents(agentId, runId)).toEqual([{ started: {} }, { step: { title: 'working' } }, { stopped: { reason } }]);
    }

    it('a cancel through the gateway stops the run and aborts the dispatch on whichever replica executes it', async () => {
      const { agentId, runId } = await hangingRun('cancel via gateway');
      const cancel = await http(base, 'POST', `/v1/agents/${agentId}/runs/${runId}/cancel`, { key: KEY, body: { reason: 'enough' } });
      expect(cancel.status).toBe(200);
      expect(cancel.body).toEqual({ success: true, error: null });
      await expectStoppedAndAborted(agentId, runId, 'enough');
    });

    it('a cancel handled by the replica that is not executing the run aborts the executing one', async () => {
      const { agentId, runId } = await hangingRun('cancel from the other replica');
      const executedBySecond = runtime.dispatchesFor(runId)[0].path === REPLICA_2;
      const other = executedBySecond ? system.others.runs! : second;
      const userId = (await http(base, 'GET', '/v1/me', { key: KEY })).body.user_id;
      expect(await other.get(RunsService).cancel(userId, agentId, runId, 'from afar')).toEqual({ success: true, error: null });
      await expectStoppedAndAborted(agentId, runId, 'from afar');
    });
  });
});
