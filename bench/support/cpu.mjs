// CPU time per process from Linux /proc, for benchmarks that report what each part of the system
// spent (elsewhere the snapshots are empty and the figures are left out).
import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds used so far by every process on the machine, with its name and (PostgreSQL) title. */
export function processCpu() {
  const all = new Map();
  try {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        // A PostgreSQL backend names its database in its title: one serving another database is not ours.
        const title = comm === 'postgres' ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
        all.set(Number(pid), { comm, title, seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
      } catch {
        // exited meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return all;
}

/**
 * CPU seconds used between two processCpu() snapshots by each part: every app of `system` by its
 * name (replicas summed), this process ('bench'), PostgreSQL (the system's database's backends and
 * the server's own processes: WAL writer, checkpointer...), Redis, and anything else on the machine
 * ('unrelated': another benchmark or test run skews the figures, and this shows it). A process that
 * exited meanwhile is left out. Undefined without /proc.
 */
export function cpuUsed(before, after, system) {
  const appOf = new Map(system.processes.map((p) => [p.pid, p.app]));
  appOf.set(process.pid, 'bench');
  const database = new URL(system.databaseUrl).pathname.slice(1);
  const ours = (title) => !/ postgres \S+ \S+\(\d+\)/.test(title) || title.includes(` ${database} `);
  const used = { bench: 0, postgres: 0, redis: 0, unrelated: 0 };
  for (const app of appOf.values()) used[app] = 0;
  for (const [pid, { comm, title, seconds }] of after) {
    const shared = comm === 'postgres' && ours(title) ? 'postgres' : comm.startsWith('redis-server') ? 'redis' : 'unrelated';
    const part = appOf.get(pid) ?? shared;
    used[part] += seconds - (before.get(pid)?.seconds ?? 0);
  }
  return after.size > 0 ? used : undefined;
}
