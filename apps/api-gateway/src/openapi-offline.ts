import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { writeFileSync } from 'node:fs';
import { ApiGatewayModule } from './api-gateway.module';
import { buildOpenApiDocument } from './openapi/openapi-document';

/**
 * The document /openapi.json serves, built without Redis or any service: Nest's
 * preview mode reads the controllers' decorators without creating providers.
 * `npm run sdk:generate` writes it for libs/sdk.
 */
export async function offlineOpenApiDocument(): Promise<OpenAPIObject> {
  // The settings are still validated; nothing here builds a URL, so any base will do.
  const settings = { PUBLIC_BASE_URL: 'http://localhost' };
  const app = await NestFactory.create(ApiGatewayModule.forRoot(settings), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}

/** The document as libs/sdk/openapi.json holds it: stable key order from the build, two-space JSON, a final newline. */
export function serializeOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (require.main === module) {
  const target = process.argv[2];
  if (!target) {
    process.stderr.write('usage: openapi-offline.js <output.json>\n');
    process.exit(2);
  }
  offlineOpenApiDocument().then(
    (document) => writeFileSync(target, serializeOpenApiDocument(document)),
    (error: Error) => {
      process.stderr.write(`openapi: ${error.stack ?? error.message}\n`);
      process.exit(1);
    },
  );
}
