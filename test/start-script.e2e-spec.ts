import { BUILD_TIMEOUT_MS, ensureBuiltOnce } from './support/built-apps';
import { eventually } from './support/eventually';
import { Installation, freePortRun, isAlive, killGroup } from './support/installation';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { supervise } = require('../scripts/supervise.js') as {
  supervise(
    apps: Array<{ name: string; command: string; args: string[]; env: NodeJS.ProcessEnv }>,
    options: { stopMs: number; out: { write(s: string): void }; err: { write(s: string): void } },
  ): Promise<number>;
};

const APPS = ['api-gateway', 'agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery'];

/**
 * `npm start` under a supervisor (scripts/start.js, scripts/supervise.js): a signal to its process alone
 * stops every app, two installations on one machine do not collide, and an app that dies takes the others
 * down. Runs the compiled apps (dist/), as npm start does.
 */
describe('npm start', () => {
  describe('two installations on one machine', () => {
    let first: Installation;
    let second: Installation;

    beforeAll(() => ensureBuiltOnce(), BUILD_TIMEOUT_MS);
    beforeAll(async () => {
      const port = await freePortRun();
      first = Installation.start('npm', port);
      second = Installation.start('node', await freePortRun([port]));
      await Promise.all(
        [first, second].map((installation) =>
          eventually('the installation ready', () => installation.ready(), Boolean, 150_000, 250).catch((error: Error) => {
            throw new Error(`${error.message}\n${installation.lastLines()}`);
          }),
        ),
      );
    }, 180_000); // ten apps starting at once on a busy 2-core machine
    afterAll(async () => {
      await Promise.all([first?.dispose(), second?.dispose()]);
    });

    it('both become ready, each back-end app on a health port derived from its own PORT', () => {
      expect(first.healthPorts()).toEqual([1, 2, 3, 4].map((i) => first.port + i));
      expect([...first.appPids().keys()].sort()).toEqual([...APPS].sort());
      expect([...second.appPids().keys()].sort()).toEqual([...APPS].sort());
    });

    it('a SIGTERM to the npm start process alone stops every app of it, each after draining, and leaves the other installation alone', async () => {
      const pids = [...first.appPids().values()];
      expect(pids.every(isAlive)).toBe(true);
      process.kill(first.child.pid!, 'SIGTERM');
      const { code } = await first.exited;
      expect({ code, running: pids.filter(isAlive) }).toEqual({ code: 0, running: [] });
      expect(Object.fromEntries(first.appExits())).toEqual(Object.fromEntries(APPS.map((app) => [app, 'code 0'])));
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
