import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { IsolatedInfra, isolatedInfra } from './isolated-infra';
import { TEST_WEBHOOK_SECRET_KEY } from './test-system';

const ROOT = path.join(__dirname, '..', '..');
const BACK_END_APPS = ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery'];

/**
 * One `npm start` (or `node scripts/start.js`) as a user runs it, on this test file's own database and Redis
 * prefix, in a process group of its own: a test signals its first process alone, or the whole group as a
 * terminal's Ctrl-C does.
 */
export class Installation {
  readonly output: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly port: number,
    readonly infra: IsolatedInfra,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => this.output.push(...chunk.toString().split('\n').filter(Boolean));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** `how`: `npm` runs `npm start`, `node` runs `node scripts/start.js`. */
  static start(how: 'npm' | 'node', port: number, env: Record<string, string> = {}): Installation {
    const infra = isolatedInfra();
    const [command, args] = how === 'npm' ? ['npm', ['start', '--silent']] : [process.execPath, ['scripts/start.js']];
    const child = spawn(command, args, {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PORT: String(port),
        DATABASE_URL: infra.databaseUrl,
        REDIS_URL: infra.redisUrl,
        REDIS_PREFIX: infra.redisPrefix,
        WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
        DATABASE_POOL_SIZE: '2',
        RUN_ACCEPTANCE_POOL_SIZE: '2',
        ...env,
      },
    });
    return new Installation(port, infra, child);
  }

  /** The back-end apps' health ports, as npm start derives them. */
  healthPorts(): number[] {
    return BACK_END_APPS.map((_app, i) => this.port + 1 + i);
  }

  /** Every app's pid, from the lines npm start prints as it starts them. */
  appPids(): Map<string, number> {
    const pids = new Map<string, number>();
    for (const line of this.output) {
      const started = /\] (\S+) started \(pid (\d+)\)/.exec(line);
      if (started) pids.set(started[1], Number(started[2]));
    }
    return pids;
  }

  /** How each app ended, from the lines npm start prints: `code 0`, `on SIGKILL`, … */
  appExits(): Map<string, string> {
    const exits = new Map<string, string>();
    for (const line of this.output) {
      const exited = /\] (\S+) \(pid \d+\) exited (?:with )?(.+)$/.exec(line);
      if (exited) exits.set(exited[1], exited[2]);
    }
    return exits;
  }

  /** Ready: the gateway's deep status (every service behind it) and each back-end app's own /readyz on its port. */
  async ready(): Promise<boolean> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`npm start exited (${this.child.exitCode ?? this.child.signalCode}) before it was ready`);
    const urls = [`http://127.0.0.1:${this.port}/readyz/deep`, ...this.healthPorts().map((port) => `http://127.0.0.1:${port}/readyz`)];
    const answers = await Promise.all(urls.map((url) => fetch(url).then((res) => res.ok, () => false)));
    return answers.every(Boolean);
  }

  /** Kills what is left of the group and removes the database and Redis keys. */
  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      killGroup(this.child.pid!, 'SIGKILL');
      await this.exited;
    }
    for (const pid of this.appPids().values()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await this.infra.dispose();
  }

  lastLines(n = 30): string {
    return this.output.slice(-n).join('\n');
  }
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A port with the four above it free too (the gateway and its health ports; `span` 6 for the agent
 * runtime's PORT+5 as well), at least `span` away from those in `taken`.
 * Below Linux's ephemeral range (32768 and up), which the apps' own outgoing connections draw from meanwhile.
 */
export async function freePortRun(taken: number[] = [], span = 5): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.some((port) => Math.abs(port - base) < span)) continue;
    const free = await Promise.all(Array.from({ length: span }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}
