import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUILD_TIMEOUT_MS, ensureBuiltOnce } from './support/built-apps';
import { eventually } from './support/eventually';
import { FakeModelServer } from './support/fake-model-server';
import { Installation, freePortRun, isAlive, killGroup } from './support/installation';
import { ModelAgents } from './support/model-agents';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { supervise } = require('../scripts/supervise.js') as {
  supervise(
    apps: Array<{ name: string; command: string; args: string[]; env: NodeJS.ProcessEnv }>,
    options: { stopMs: number; out: { write(s: string): void }; err: { write(s: string): void } },
  ): Promise<number>;
};

const APPS = ['api-gateway', 'agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery'];
/** With a model configured, npm start runs the agent runtime too, on PORT+5. */
const WITH_MODEL = [...APPS, 'agent-runtime'];
const KEY = 'start-script-bootstrap-key-0123456789';
/** The runtime's MCP servers: a local command (test/support/fixture-mcp-stdio-server.mjs), closed when the runtime stops. */
const MCP_SERVERS = JSON.stringify({ local: { command: process.execPath, args: [path.join(__dirname, 'support', 'fixture-mcp-stdio-server.mjs')] } });

/** Whether `pid` runs: a zombie (ended, not yet reaped by whoever inherited it) does not. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * `npm start` under a supervisor (scripts/start.js, scripts/supervise.js): a signal to its process alone
 * stops every app, two installations on one machine do not collide, and an app that dies takes the others
 * down. The first installation has a model (MODEL_NAME, MODEL_BASE_URL: the fake model server) and a stdio
 * MCP server, so it runs the agent runtime and runs-service dispatches to it; the second has none (the
 * built-in simulator). Runs the compiled apps (dist/), as npm start does.
 */
describe('npm start', () => {
  describe('two installations on one machine', () => {
    let fake: FakeModelServer;
    let first: Installation;
    let second: Installation;
    let stdioPid: number;

    beforeAll(() => ensureBuiltOnce(), BUILD_TIMEOUT_MS);
    beforeAll(async () => {
      fake = await FakeModelServer.start();
      const port = await freePortRun([], 6);
      first = Installation.start('npm', port, { MODEL_NAME: 'fake-model', MODEL_BASE_URL: fake.url, MCP_SERVERS, BOOTSTRAP_API_KEY: KEY });
      second = Installation.start('node', await freePortRun([port], 6));
      const runtimeReady = () => fetch(`http://127.0.0.1:${first.port + 5}/readyz`).then((res) => res.ok, () => false);
      await Promise.all(
        [first, second].map((installation) =>
          eventually('the installation ready', async () => (await installation.ready()) && (installation !== first || (await runtimeReady())), Boolean, 150_000, 250).catch(
            (error: Error) => {
              throw new Error(`${error.message}\n${installation.lastLines()}`);
            },
          ),
        ),
      );
    }, 180_000); // eleven apps starting at once on a busy 2-core machine
    afterAll(async () => {
      await Promise.all([first?.dispose(), second?.dispose()]);
      await fake?.close();
    });

    it('both become ready, each back-end app on a health port derived from its own PORT; with a model, the agent runtime too', () => {
      expect(first.healthPorts()).toEqual([1, 2, 3, 4].map((i) => first.port + i));
      expect([...first.appPids().keys()].sort()).toEqual([...WITH_MODEL].sort());
      expect([...second.appPids().keys()].sort()).toEqual([...APPS].sort());
    });

    it("with a model, runs-service dispatches to the runtime npm start runs (signed with the start's own key): a build run, then a run calling a stdio MCP tool, completing with the model's answer", async () => {
      const agents = new ModelAgents(`http://127.0.0.1:${first.port}`, KEY, fake);
      const agentId = await agents.deployed('npm start', 'Answer the message.');
      const marker = fake.script('[npm start run]', { toolCalls: [{ name: 'local__whoami', arguments: {} }] }, { text: 'Answered by the model.' });
      const { run, events } = await agents.runToEnd(agentId, { user_message: `${marker} hello` });
      expect(run).toMatchObject({ status: 'completed', policy_model: 'fake-model' });
      expect(events.at(-1)).toEqual({ completed: { outcome: 'success', summary: 'Answered by the model.' } });
      expect(fake.requestsFor(marker)).toHaveLength(2);
      const result = events.find((event) => 'tool_result' in event)?.tool_result;
      expect(result).toMatchObject({ tool: 'local.whoami', is_error: false, output: expect.stringMatching(/^pid \d+$/) });
      stdioPid = Number(result.output.slice(4));
      expect(running(stdioPid)).toBe(true);
      // The runtime listens on every interface: a dispatch without the signature is refused.
      const unsigned = await fetch(`http://127.0.0.1:${first.port + 5}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(unsigned.status).toBe(401);
    });

    it('a SIGTERM to the npm start process alone stops every app of it, each after draining, leaving no stdio MCP server behind, and leaves the other installation alone', async () => {
      const pids = [...first.appPids().values()];
      expect(pids.every(isAlive)).toBe(true);
      process.kill(first.child.pid!, 'SIGTERM');
      const { code } = await first.exited;
      expect({ code, running: pids.filter(isAlive) }).toEqual({ code: 0, running: [] });
      expect(Object.fromEntries(first.appExits())).toEqual(Object.fromEntries(WITH_MODEL.map((app) => [app, 'code 0'])));
      // Nothing of the runtime's is left behind: its stdio MCP server is gone too (that the runtime itself closes it is agent-runtime.e2e-spec's).
      await eventually(`the stdio MCP server (pid ${stdioPid}) gone`, () => running(stdioPid), (alive) => !alive, 5_000);
      expect(await second.ready()).toBe(true);
    });

    it("a terminal's Ctrl-C (SIGINT to the whole group, npm start's process and the apps alike) is one stop: every app drains and exits 0", async () => {
      const pids = [...second.appPids().values()];
      killGroup(second.child.pid!, 'SIGINT');
      const { code } = await second.exited;
      expect({ code, running: pids.filter(isAlive) }).toEqual({ code: 0, running: [] });
      expect(Object.fromEntries(second.appExits())).toEqual(Object.fromEntries(APPS.map((app) => [app, 'code 0'])));
    });
  });

  describe('the supervisor', () => {
    /** A stand-in app: runs until SIGTERM (or, `stubborn`, ignores it), or exits by itself after `exitAfterMs`. */
    const app = (name: string, { exitAfterMs, stubborn = false }: { exitAfterMs?: number; stubborn?: boolean } = {}) => ({
      name,
      command: process.execPath,
      args: [
        '-e',
        [
          'setInterval(() => undefined, 1000);',
          `process.on('SIGTERM', () => ${stubborn ? 'undefined' : 'process.exit(0)'});`,
          exitAfterMs === undefined ? '' : `setTimeout(() => process.exit(3), ${exitAfterMs});`,
        ].join(' '),
      ],
      env: { PATH: process.env.PATH },
    });
    const run = async (apps: ReturnType<typeof app>[], stopMs = 30_000) => {
      const lines: string[] = [];
      const sink = { write: (text: string) => void lines.push(...text.split('\n').filter(Boolean)) };
      const code = await supervise(apps, { stopMs, out: sink, err: sink });
      const pids = lines.flatMap((line) => /started \(pid (\d+)\)/.exec(line)?.slice(1) ?? []).map(Number);
      return { code, lines, pids };
    };

    it('stops every app when one exits by itself, and exits 1 so a supervisor restarts the installation', async () => {
      const { code, lines, pids } = await run([app('steady'), app('crashing', { exitAfterMs: 300 }), app('other')]);
      expect(code).toBe(1);
      expect(pids).toHaveLength(3);
      expect(pids.filter(isAlive)).toEqual([]);
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/crashing \(pid \d+\) exited with code 3/),
          expect.stringMatching(/crashing exited: sending SIGTERM to steady, other/),
          expect.stringMatching(/steady \(pid \d+\) exited with code 0/),
        ]),
      );
    });

    it('kills an app still running when the stop time is up', async () => {
      const { code, lines, pids } = await run([app('stubborn', { stubborn: true }), app('crashing', { exitAfterMs: 300 })], 1_000);
      expect(code).toBe(1);
      expect(pids.filter(isAlive)).toEqual([]);
      expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/still running after 1000 ms: sending SIGKILL to stubborn/), expect.stringMatching(/stubborn .* exited on SIGKILL/)]));
    });
  });
});
