import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule, getSchemaPath } from '@nestjs/swagger';
import { ProblemDetailDto } from '@aas/contracts';

export const API_KEY_SCHEME = 'x-api-key';
/** The console's session cookie (docs/console.md); on /v1 routes only together with the x-csrf-token header. */
export const CONSOLE_SESSION_SCHEME = 'console-session';

/** Generated from the controllers' decorators and the DTO classes, so it cannot drift from the code. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Agent Automation Service API')
    .setDescription('Manage automation agents, their runs, schedules, instructions, webhooks, workspaces and API keys.')
    .setVersion('1.0.0')
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // Relative: the document is served by the gateway it describes, so clients and "try it out" call that host.
    .addServer('/')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, API_KEY_SCHEME)
    .addSecurityRequirements(API_KEY_SCHEME)
    .addCookieAuth(
      'aas_session',
      {
        type: 'apiKey',
        in: 'cookie',
        name: 'aas_session',
        description:
          'The console session (sign in at /console). Accepted on the API routes only with the session\'s x-csrf-token header, from the gateway\'s own origin; programs use x-api-key.',
      },
      CONSOLE_SESSION_SCHEME,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ProblemDetailDto] });
  return withDefaultProblemResponses(document);
}

/** Every operation may also fail with a status it does not list (429, 5xx): the `default` response says so. */
function withDefaultProblemResponses(document: OpenAPIObject): OpenAPIObject {
  const problem = { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDetailDto) } } };
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path)) {
      if (typeof operation === 'object' && operation && 'responses' in operation) {
        operation.responses.default ??= { description: 'Any other error, as Problem Details', content: problem };
      }
    }
  }
  return document;
}

export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Agent Automation Service API',
  });
}
