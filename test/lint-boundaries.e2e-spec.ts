import { lintMessages } from './support/lint-text';

const WALL = 'boundaries/dependencies';

/** The messages of the rule under test, per case (test/support/lint-text.ts). */
function wallMessages(cases: Array<{ filePath: string; code: string }>): string[][] {
  return lintMessages(cases, [WALL]).map((messages) => messages.map((m) => m.slice(WALL.length + 2)));
}

/**
 * The walls of eslint.config.mjs (docs/architecture.md, "Walls"), proven on code that is never
 * written to disk: each import names a real file, so it is resolved exactly as it would be in the
 * file the code stands for.
 */
const BROKEN: Array<[string, string, string]> = [
  ['an app importing another app', 'apps/runs-service/src/acceptance/x.ts', "import { AgentsEnv } from '../../../agents-service/src/config/agents.env';"],
  ['an app re-exporting another app', 'apps/runs-service/src/x.ts', "export { ApiGatewayModule } from '../../api-gateway/src/api-gateway.module';"],
  ['an app importing another app for its types only', 'apps/scheduler-service/src/x.ts', "import type { RunEntity } from '../../runs-service/src/database/run.entity';"],
  ['an app importing another app at run time', 'apps/runs-service/src/x.ts', "export const load = () => import('../../webhook-delivery/src/main');"],
  ['an app importing another app by a path from the root', 'apps/runs-service/src/x.ts', "import { AgentsEnv } from 'apps/agents-service/src/config/agents.env';"],
  ['a lib importing an app', 'libs/platform/src/x.ts', "import { RunsEnv } from '../../../apps/runs-service/src/config/runs.env';"],
  ['a lib spec importing an app', 'libs/sdk/x.spec.ts', "import { offlineOpenApiDocument } from '../../apps/api-gateway/src/openapi-offline';"],
  ['contracts importing another lib by its alias', 'libs/contracts/src/x.ts', "import { ValidationFailedError } from '@aas/problem-details';"],
  ['contracts importing another lib by its path', 'libs/contracts/src/x.ts', "import { OutboxRelay } from '../../platform/src';"],
  ['the SDK importing another lib', 'libs/sdk/src/x.ts', "import { EventNames } from '../../contracts/src';"],
  ['a lower lib importing a higher one', 'libs/transport/src/x.ts', "import { ServiceClient } from '@aas/platform';"],
  ['the console importing a lib other than the SDK', 'apps/console/src/x.ts', "import { EventNames } from '@aas/contracts';"],
  ['app code (not a test) importing the test support', 'apps/runs-service/src/x.ts', "import { isolatedInfra } from '../../../test/support/isolated-infra';"],
];

const LEGAL: Array<[string, string, string]> = [
  ['an app importing its own files and the libs', 'apps/runs-service/src/acceptance/x.ts', "import { RunEntity } from '../database/run.entity';\nimport { OutboxRelay } from '@aas/platform';\nimport { EventNames } from '@aas/contracts';"],
  ['the gateway importing its own console folder', 'apps/api-gateway/src/http/x.ts', "import { serveConsole } from '../console/serve-console';"],
  ['platform importing transport, problem-details and contracts', 'libs/platform/src/x.ts', "import { DomainError } from '@aas/problem-details';\nimport { RedisStreamsClient } from '@aas/transport';\nimport { RunsPatterns } from '@aas/contracts';"],
  ['the console importing the SDK and its own files', 'apps/console/src/x.ts', "import { createAasClient } from '@aas/sdk';\nimport { useSession } from './session';"],
  ['an app test importing the test support', 'apps/runs-service/src/x.int-spec.ts', "import { isolatedInfra } from '../../../test/support/isolated-infra';"],
  ['a test importing an app and a lib', 'test/x.e2e-spec.ts', "import { RunsEnv } from '../apps/runs-service/src/config/runs.env';\nimport { EventNames } from '@aas/contracts';"],
  ['a benchmark importing an app', 'bench/x.mjs', "import { RunsEnv } from '../apps/runs-service/src/config/runs.env';"],
];

describe('the import walls of npm run lint', () => {
  const all = [...BROKEN, ...LEGAL];
  const messages = new Map<string, string[]>();

  beforeAll(() => {
    const results = wallMessages(all.map(([, filePath, code]) => ({ filePath, code })));
    all.forEach(([name], i) => messages.set(name, results[i]));
  });

  it.each(BROKEN)('reports %s (%s)', (name, filePath) => {
    expect({ filePath, wallsBroken: messages.get(name)!.length }).toEqual({ filePath, wallsBroken: 1 });
  });

  it.each(LEGAL)('allows %s (%s)', (name, filePath) => {
    expect({ filePath, messages: messages.get(name) }).toEqual({ filePath, messages: [] });
  });
});
