import 'reflect-metadata';
import { startApiGateway } from './api-gateway.app';

startApiGateway().catch((error: Error) => {
  process.stderr.write(`api-gateway: ${error.message}\n`);
  process.exit(1);
});
