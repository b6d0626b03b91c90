// Private PostgreSQL and Redis instances for the fault tests, in a temporary directory of their own,
// so restarting them never touches the machine's shared services. Both can be stopped and started
// again on the same data (PostgreSQL's data directory, Redis's append-only file).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, createWriteStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A TCP port nobody listens on right now. */
/** Ports this run has handed out: a port is free again once closed, so the kernel may offer it twice. */
const handedOut = new Set();

/**
 * A port nothing listens on now, and that this run has not handed out before: processes bind theirs
 * seconds later, so two of them given the same port would both start (a service's health server on
 * 0.0.0.0, the gateway on another address) and requests would reach the wrong one.
 */
export async function freePort() {
  for (;;) {
    const port = await unusedPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function unusedPort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves true once something accepts TCP connections on the port. */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what, check, ms = 30_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s`);
}

/**
 * Redis with an append-only file fsynced on every write: BullMQ keeps its queues in Redis, so a
 * restart without persistence would lose every queued job (the production compose file runs AOF too).
 */
export class PrivateRedis {
  constructor(dir, port) {
    this.dir = dir;
    this.port = port;
    this.url = `redis://127.0.0.1:${port}`;
    this.log = join(dir, 'redis.log');
    this.child = undefined;
  }

  static async create(root) {
    const dir = join(root, 'redis');
    mkdirSync(dir, { recursive: true });
    const redis = new PrivateRedis(dir, await freePort());
    await redis.start();
    return redis;
  }

  async start() {
    const out = createWriteStream(this.log, { flags: 'a' });
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'always',
        '--save', '', '--daemonize', 'no', '--protected-mode', 'yes'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout.pipe(out);
    this.child.stderr.pipe(out);
    const child = this.child;
    await waitFor('redis-server', async () => {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} (see ${this.log})`);
      return this.ping();
    });
  }

  ping() {
    return spawnSync('redis-cli', ['-p', String(this.port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG';
  }

  /** SHUTDOWN: Redis flushes the append-only file and exits. */
  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    spawnSync('redis-cli', ['-p', String(this.port), 'shutdown'], { encoding: 'utf8', timeout: 10_000 });
    await Promise.race([exited, sleep(10_000)]);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }

  /** Synchronous, for an exit handler. */
  killNow() {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/**
 * A PostgreSQL cluster of our own (initdb, pg_ctl as the postgres OS user), trust authentication,
 * listening on 127.0.0.1 only. fsync is off: a stop, even an immediate one, kills processes, not the
 * machine, so the operating system keeps every write.
 */
export class PrivatePostgres {
  constructor(dir, port, bin) {
    this.dir = dir;
    this.port = port;
    this.bin = bin;
    this.data = join(dir, 'data');
    this.socketDir = join(dir, 'sock');
    this.log = join(dir, 'postgres.log');
    this.adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  static async create(root) {
    const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [];
    const bin = versions
      .sort((a, b) => Number(a) - Number(b))
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .filter((dir) => existsSync(join(dir, 'pg_ctl')))
      .pop();
    if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin');
    const dir = join(root, 'postgres');
    const pg = new PrivatePostgres(dir, await freePort(), bin);
    mkdirSync(pg.socketDir, { recursive: true });
    for (const path of [dir, pg.socketDir]) chownPostgres(path);
    pg.asPostgres('initdb', ['-D', pg.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
    await pg.start();
    return pg;
  }

  urlFor(database) {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  asPostgres(tool, args) {
    const result = spawnSync('runuser', ['-u', 'postgres', '--', join(this.bin, tool), ...args], { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
    return result.stdout;
  }

  async start() {
    const options = [
      `-p ${this.port}`, `-k ${this.socketDir}`, '-c listen_addresses=127.0.0.1', '-c max_connections=300',
      '-c fsync=off', '-c full_page_writes=off', '-c shared_buffers=64MB',
    ].join(' ');
    this.asPostgres('pg_ctl', ['-D', this.data, '-l', this.log, '-o', options, '-w', '-t', '60', 'start']);
    await waitFor('postgres', () => accepts(this.port));
  }

  /** `immediate` is a crash as far as clients can tell (every backend is gone at once); `fast` a clean stop. */
  async stop(mode = 'immediate') {
    this.asPostgres('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  /** Synchronous, for an exit handler. */
  killNow() {
    spawnSync('runuser', ['-u', 'postgres', '--', join(this.bin, 'pg_ctl'), '-D', this.data, '-m', 'immediate', 'stop'], {
      stdio: 'ignore',
      timeout: 20_000,
    });
  }
}

function chownPostgres(path) {
  const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (ids.status !== 0) throw new Error('there is no postgres OS user to run the private PostgreSQL as');
  chownSync(path, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
  chmodSync(path, 0o700);
}
