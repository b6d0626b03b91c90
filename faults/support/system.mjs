// The compiled apps as operating-system processes, several of each, on a database and Redis
// prefix of the scenario's own. Every process writes its output to a log file of its own (kept
// across restarts), a process can be killed and started again on the same port, and a process that
// exits without being told to is remembered, since that is a failure in itself.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './infra.mjs';

const require = createRequire(import.meta.url);
const { APPS, SCHEMA_OWNERS, ensureBuilt, root } = require('../../scripts/apps.js');

export { APPS };
/** The order apps are killed in scenario 1, and started in. */
export const START_ORDER = ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'];

/**
 * Copies dist/ into the run's temporary directory (with node_modules linked beside it), so a
 * build started by someone else meanwhile (nest build empties dist/ first) cannot pull the code
 * from under a process that is restarted mid-scenario.
 */
export async function snapshotBuild(tmp) {
  ensureBuilt();
  const appRoot = join(tmp, 'app');
  const entryOf = (app) => join(appRoot, 'dist', 'apps', app, 'apps', app, 'src', 'main.js');
  for (let attempt = 1; ; attempt++) {
    cpSync(join(root, 'dist'), join(appRoot, 'dist'), { recursive: true, force: true });
    if (APPS.every((app) => existsSync(entryOf(app)))) break;
    if (attempt === 5) throw new Error('dist/ is incomplete (a build running?); run npm run build and try again');
    await sleep(5_000);
  }
  if (!existsSync(join(appRoot, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(appRoot, 'node_modules'), 'dir');
  return entryOf;
}

export class AppSystem {
  /**
   * @param {object} o
   * @param {(app: string) => string} o.entryOf  compiled entry point of an app
   * @param {string} o.logDir
   * @param {Record<string, string>} o.env  settings for every process
   * @param {number} o.replicas  processes per app
   */
  constructor({ entryOf, logDir, env, replicas = 2 }) {
    this.entryOf = entryOf;
    this.logDir = logDir;
    this.env = env;
    this.replicas = replicas;
    /** @type {{app: string, index: number, port: number, child: import('node:child_process').ChildProcess, log: string, expectExit: boolean}[]} */
    this.processes = [];
    /** Processes that exited without being told to: { app, index, code, signal, at }. */
    this.unexpectedExits = [];
    mkdirSync(logDir, { recursive: true });
  }

  migrate() {
    for (const app of SCHEMA_OWNERS) {
      const result = spawnSync(process.execPath, [this.entryOf(app), 'migrate'], { env: this.env, encoding: 'utf8', timeout: 120_000 });
      if (result.status !== 0) throw new Error(`${app} migrate failed: ${result.stderr || result.stdout}`);
    }
  }

  async start() {
    this.migrate();
    for (const app of START_ORDER) {
      for (let index = 0; index < this.replicas; index++) this.processes.push(this.spawn(app, index, await freePort()));
    }
    await Promise.all(this.processes.map((p) => this.waitHealthy(p, 60_000)));
  }

  spawn(app, index, port) {
    const log = join(this.logDir, `${app}-${index}.log`);
    const out = createWriteStream(log, { flags: 'a' });
    const portSetting = app === 'api-gateway' ? { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } : { HEALTH_PORT: String(port) };
    const child = spawn(process.execPath, [this.entryOf(app)], {
      env: { ...this.env, ...portSetting },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    out.write(`--- ${new Date().toISOString()} spawned ${app}-${index} pid ${child.pid} port ${port}\n`);
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    const started = { app, index, port, child, log, expectExit: false };
    child.once('exit', (code, signal) => {
      out.end(`--- ${new Date().toISOString()} exited code ${code} signal ${signal}\n`);
      if (!started.expectExit) this.unexpectedExits.push({ app, index, pid: child.pid, code, signal, at: Date.now() });
    });
    return started;
  }

  url(p) {
    return `http://127.0.0.1:${p.port}`;
  }

  gatewayUrls() {
    return this.of('api-gateway').map((p) => this.url(p));
  }

  of(app) {
    return this.processes.filter((p) => p.app === app);
  }

  alive(p) {
    return p.child.exitCode === null && p.child.signalCode === null;
  }

  /** A back-end app is healthy when its own dependencies answer, the gateway once it listens. */
  async waitHealthy(p, ms = 60_000) {
    const until = Date.now() + ms;
    const path = p.app === 'api-gateway' ? '/healthz' : '/readyz';
    while (Date.now() < until) {
      if (!this.alive(p)) throw new Error(`${p.app}-${p.index} exited while starting (${p.log})`);
      const ok = await fetch(this.url(p) + path, { signal: AbortSignal.timeout(2_000) }).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) return;
      await sleep(100);
    }
    throw new Error(`${p.app}-${p.index} on port ${p.port} was not healthy within ${ms / 1000} s (${p.log})`);
  }

  /** Sends a signal and waits for the exit. */
  async kill(p, signal = 'SIGKILL') {
    if (!this.alive(p)) return;
    p.expectExit = true;
    const exited = new Promise((resolve) => p.child.once('exit', resolve));
    p.child.kill(signal);
    await exited;
  }

  /** Starts the process again with the same index and port, and waits until it is healthy. */
  async restart(p) {
    const next = this.spawn(p.app, p.index, p.port);
    this.processes[this.processes.indexOf(p)] = next;
    await this.waitHealthy(next);
    return next;
  }

  async stopAll() {
    await Promise.all(this.processes.map((p) => this.kill(p, 'SIGKILL')));
  }

  /** Synchronous, for an exit handler. */
  killNow() {
    for (const p of this.processes) {
      p.expectExit = true;
      if (this.alive(p)) p.child.kill('SIGKILL');
    }
  }
}
