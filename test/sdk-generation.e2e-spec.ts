import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { offlineOpenApiDocument, serializeOpenApiDocument } from '../apps/api-gateway/src/openapi-offline';

const ROOT = path.join(__dirname, '..');
const SDK = path.join(ROOT, 'libs', 'sdk');
const STALE = 'is not current: run `npm run sdk:generate` and commit the result';

/**
 * libs/sdk is generated from the gateway's OpenAPI document; these fail when the checked-in files lag
 * behind the code. Here rather than in libs/sdk: no lib may import an app (eslint.config.mjs).
 */
describe('the generated SDK', () => {
  it('holds the OpenAPI document the gateway serves', async () => {
    const current = serializeOpenApiDocument(await offlineOpenApiDocument());
    const checkedIn = readFileSync(path.join(SDK, 'openapi.json'), 'utf8');
    expect({ file: 'libs/sdk/openapi.json', current: checkedIn === current }).toEqual({ file: 'libs/sdk/openapi.json', current: true });
  });

  it('holds the types openapi-typescript makes of that document', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'aas-sdk-'));
    try {
      const generated = path.join(out, 'schema.d.ts');
      const cli = path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
      execFileSync(process.execPath, [cli, path.join(SDK, 'openapi.json'), '--default-non-nullable=false', '--output', generated], { stdio: 'pipe' });
      const same = readFileSync(generated, 'utf8') === readFileSync(path.join(SDK, 'src', 'schema.d.ts'), 'utf8');
      expect({ file: `libs/sdk/src/schema.d.ts ${STALE}`, same }).toEqual({ file: `libs/sdk/src/schema.d.ts ${STALE}`, same: true });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
