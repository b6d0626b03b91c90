import { INestApplication } from '@nestjs/common';

/**
 * SIGTERM (Kubernetes, docker stop) and SIGINT (Ctrl-C) run the app's shutdown
 * hooks: work is drained, connections closed, then the process exits 0, or 1
 * if a hook failed, so a clean stop is told apart from a kill.
 */
export function exitCleanlyOnSignals(app: INestApplication): void {
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
}
