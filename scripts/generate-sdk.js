// npm run sdk:generate: the gateway's OpenAPI document into libs/sdk/openapi.json, and its types
// (openapi-typescript) into libs/sdk/src/schema.d.ts. test/sdk-generation.e2e-spec.ts fails when either is stale.
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { root } = require('./apps');

const sdk = path.join(root, 'libs', 'sdk');
const documentFile = path.join(sdk, 'openapi.json');
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });

run(process.execPath, [path.join(root, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build', 'api-gateway']);
run(process.execPath, [path.join(root, 'dist', 'apps', 'api-gateway', 'apps', 'api-gateway', 'src', 'openapi-offline.js'), documentFile]);
// A default does not make a request field required (openapi-typescript's defaultNonNullable would).
run(process.execPath, [
  path.join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
  documentFile,
  '--default-non-nullable=false',
  '--output',
  path.join(sdk, 'src', 'schema.d.ts'),
]);
