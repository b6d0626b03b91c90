import { INestApplication, Logger } from '@nestjs/common';
import { flushTracing } from '../tracing/start-tracing';

/**
 * SIGTERM (Kubernetes, docker stop) and SIGINT (Ctrl-C) run the app's shutdown
 * hooks: work is drained, connections closed, buffered spans sent, then the
 * process exits 0, or 1 if shutting down failed, so a clean stop is told apart
 * from a kill. A second signal is not caught: it ends the process at once.
 */
export function exitCleanlyOnSignals(app: INestApplication): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      app
        .close()
        .then(() => flushTracing())
        .then(
          () => process.exit(0),
          (error: Error) => {
            new Logger('Shutdown').error({ err: error }, `stopping on ${signal} failed`);
            process.exit(1);
          },
        );
    });
  }
}
