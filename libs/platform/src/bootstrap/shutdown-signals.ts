import { INestApplication, Logger } from '@nestjs/common';
import { flushTracing } from '../tracing/start-tracing';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/**
 * A second signal this soon after the first is the same stop: a terminal's Ctrl-C reaches an app both from
 * the terminal and from `npm start`, which sends it on, and a supervisor may signal a whole process group.
 */
export const REPEATED_SIGNAL_MS = 1_000;

/** The part of `process` that signals reach and exits go through. */
export type SignalTarget = Pick<NodeJS.Process, 'on' | 'removeListener' | 'kill' | 'exit' | 'pid'>;

/**
 * SIGTERM (Kubernetes, docker stop, `npm start` stopping) and SIGINT (Ctrl-C) run the app's shutdown
 * hooks: work is drained, connections closed, buffered spans sent, then the process exits 0, or 1 if
 * shutting down failed, so a clean stop is told apart from a kill. A further signal within
 * REPEATED_SIGNAL_MS is the same stop; a later one ends the process at once, by that signal.
 */
export function exitCleanlyOnSignals(app: INestApplication, target: SignalTarget = process): void {
  let firstAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstAt === undefined) {
      firstAt = Date.now();
      stop(app, signal, target);
    } else if (Date.now() - firstAt >= REPEATED_SIGNAL_MS) {
      // Whoever sent it will not wait: uncaught, the signal ends the process as if no handler had been set.
      for (const name of STOP_SIGNALS) target.removeListener(name, onSignal);
      target.kill(target.pid, signal);
    }
  };
  for (const name of STOP_SIGNALS) target.on(name, onSignal);
}

function stop(app: INestApplication, signal: NodeJS.Signals, target: SignalTarget): void {
  app
    .close()
    .then(() => flushTracing())
    .then(
      () => target.exit(0),
      (error: Error) => {
        new Logger('Shutdown').error({ err: error }, `stopping on ${signal} failed`);
        target.exit(1);
      },
    );
}
