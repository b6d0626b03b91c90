// Tracing first: it must load before the modules it instruments (http, undici).
import './tracing';
import 'reflect-metadata';
import { exitCleanlyOnSignals } from '@aas/platform';
import { startAgentRuntime } from './agent-runtime.app';

startAgentRuntime().then(
  (app) => exitCleanlyOnSignals(app),
  (error: Error) => {
    process.stderr.write(`agent-runtime: ${error.message}\n`);
    process.exit(1);
  },
);
