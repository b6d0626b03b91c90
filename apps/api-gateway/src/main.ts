// Tracing first: it must load before the modules it instruments (http, pg, ioredis, undici).
import './tracing';
import 'reflect-metadata';
import { exitCleanlyOnSignals } from '@aas/platform';
import { startApiGateway } from './api-gateway.app';

startApiGateway().then(exitCleanlyOnSignals).catch((error: Error) => {
  process.stderr.write(`api-gateway: ${error.message}\n`);
  process.exit(1);
});
