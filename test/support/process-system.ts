import { ChildProcess, spawn } from 'node:child_process';
import { ensureBuiltOnce } from './built-apps';
import { freePort } from './free-port';
import { IsolatedInfra, isolatedInfra } from './isolated-infra';
import { TEST_WEBHOOK_SECRET_KEY } from './test-system';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { entry, SCHEMA_OWNERS } = require('../../scripts/apps.js') as { entry(app: string): string; SCHEMA_OWNERS: string[] };

export type AppName = 'api-gateway' | 'agents-service' | 'runs-service' | 'scheduler-service' | 'webhook-delivery';
type Env = Record<string, string>;

const START_ORDER: AppName[] = ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'];
const LOG_LINES_KEPT = 200;

export interface AppProcess {
  app: AppName;
  /** The gateway's PORT or a back-end app's HEALTH_PORT. */
  port: number;
  child: ChildProcess;
  /** The last lines the process wrote, for a failing test's message. */
  output: string[];
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the signal sent to the exit. */
  ms: number;
}

export interface ProcessSystemOptions {
  /** Processes per app (default 1 each; 0 leaves an app out). */
  replicas?: Partial<Record<AppName, number>>;
  /** Settings for every process. */
  env?: Env;
  appEnv?: Partial<Record<AppName, Env>>;
}

/**
 * The compiled apps (dist/) as separate operating-system processes, as they run
 * in production, on this test file's own database and Redis prefix.
 */
export class ProcessSystem {
  readonly processes: AppProcess[] = [];

  private constructor(
    readonly infra: IsolatedInfra,
    private readonly options: ProcessSystemOptions,
  ) {}

  static async start(options: ProcessSystemOptions = {}): Promise<ProcessSystem> {
    await ensureBuiltOnce();
    const system = new ProcessSystem(isolatedInfra(), options);
    try {
      await system.migrate();
      for (const app of START_ORDER) {
        for (let i = 0; i < (options.replicas?.[app] ?? 1); i++) await system.spawn(app);
      }
      await Promise.all(system.processes.map((p) => waitHealthy(p)));
      return system;
    } catch (error) {
      await system.stop();
      throw error;
    }
  }

  baseEnv(): Env {
    return {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: this.infra.databaseUrl,
      REDIS_URL: this.infra.redisUrl,
      REDIS_PREFIX: this.infra.redisPrefix,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
      RATE_LIMIT_REQUESTS: '0',
      RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '0',
      ...this.options.env,
    };
  }

  /** Starts one more process of an app (not waiting for it to be healthy). */
  async spawn(app: AppName, env: Env = {}): Promise<AppProcess> {
    const port = await freePort();
    const portSetting = app === 'api-gateway' ? { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } : { HEALTH_PORT: String(port) };
    const child = spawn(process.execPath, [entry(app)], {
      env: { ...this.baseEnv(), ...this.options.appEnv?.[app], ...env, ...portSetting },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started: AppProcess = { app, port, child, output: [] };
    const keep = (chunk: Buffer) => {
      started.output.push(...chunk.toString().split('\n').filter(Boolean));
      started.output.splice(0, Math.max(0, started.output.length - LOG_LINES_KEPT));
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.processes.push(started);
    return started;
  }

  async waitHealthy(p: AppProcess): Promise<void> {
    await waitHealthy(p);
  }

  of(app: AppName): AppProcess[] {
    return this.processes.filter((p) => p.app === app && p.child.exitCode === null && p.child.signalCode === null);
  }

  gatewayUrls(): string[] {
    return this.of('api-gateway').map((p) => `http://127.0.0.1:${p.port}`);
  }

  /** Sends a signal and waits for the process to exit. */
  async stopProcess(p: AppProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<ProcessExit> {
    const sent = Date.now();
    const exited = exitOf(p.child);
    p.child.kill(signal);
    const { code, signal: by } = await exited;
    return { code, signal: by, ms: Date.now() - sent };
  }

  async stop(): Promise<void> {
    const running = this.processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    await Promise.all(running.map((p) => this.stopProcess(p, 'SIGKILL')));
    await this.infra.dispose();
  }

  /** Each app's `migrate` command, the four at once as `npm run migrate` runs them (the schemas are independent). */
  private async migrate(): Promise<void> {
    await Promise.all(SCHEMA_OWNERS.map((app) => this.migrateSchemaOf(app)));
  }

  private async migrateSchemaOf(app: string): Promise<void> {
    const child = spawn(process.execPath, [entry(app), 'migrate'], { env: this.baseEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // 'close' rather than 'exit': all of stderr has been read by then.
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (...exit) => resolve(exit)));
    if (code !== 0) throw new Error(`${app} migrate failed (exit ${code ?? signal}): ${stderr}`);
  }
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** A back-end app is ready when its own dependencies answer; the gateway once it listens. */
async function waitHealthy(p: AppProcess, ms = 90_000): Promise<void> {
  const until = Date.now() + ms;
  const path = p.app === 'api-gateway' ? '/healthz' : '/readyz';
  while (Date.now() < until) {
    if (p.child.exitCode !== null) break;
    const ok = await fetch(`http://127.0.0.1:${p.port}${path}`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const lastLines = p.output.slice(-10).map((line) => line.slice(0, 400));
  throw new Error(`${p.app} on port ${p.port} did not become ready:\n${lastLines.join('\n')}`);
}
