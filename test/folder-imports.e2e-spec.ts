import { readFileSync, readdirSync } from 'node:fs';
import { join, posix, resolve, sep } from 'node:path';
import { preProcessFile } from 'typescript';

const REPO = resolve(__dirname, '..');

/**
 * The two-way imports between top-level folders that are still there, per app, as "a <-> b".
 * agents-service: creating an agent finds its workspace (agents -> workspaces), and deleting a
 * workspace deletes its agents (workspaces -> agents). This list only shrinks: a new pair fails the
 * test, and so does a pair that is gone but still listed.
 */
const KNOWN: Record<string, string[]> = {
  'agents-service': ['agents <-> workspaces'],
};

interface SourceFile {
  /** Relative to the app's src/, with forward slashes. */
  path: string;
  text: string;
}

/**
 * Pairs of top-level folders under an app's src/ that import each other (relative imports of the
 * app's own code; specs and fakes left out, files at the root of src/ too), as "a <-> b", a before b.
 */
function twoWayImports(files: SourceFile[]): string[] {
  const edges = new Set<string>();
  for (const file of files) {
    if (/\.(spec|int-spec|e2e-spec|fake)\.tsx?$/.test(file.path)) continue;
    const from = file.path.split('/');
    if (from.length < 2) continue;
    for (const { fileName } of preProcessFile(file.text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = posix.normalize(posix.join(posix.dirname(file.path), fileName)).split('/');
      if (to.length < 2 || to[0] === '..' || to[0] === from[0]) continue;
      edges.add(`${from[0]} -> ${to[0]}`);
    }
  }
  const pairs = [...edges].map((edge) => edge.split(' -> ')).filter(([a, b]) => a < b && edges.has(`${b} -> ${a}`));
  return pairs.map(([a, b]) => `${a} <-> ${b}`).sort();
}

function sourcesOf(app: string): SourceFile[] {
  const src = join(REPO, 'apps', app, 'src');
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((path) => /\.tsx?$/.test(path))
    .map((path) => ({ path: path.split(sep).join('/'), text: readFileSync(join(src, path), 'utf8') }));
}

const APPS = readdirSync(join(REPO, 'apps'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && readdirSync(join(REPO, 'apps', entry.name)).includes('src'))
  .map((entry) => entry.name);

describe('imports between the folders of each app', () => {
  it('finds the apps', () => {
    expect(APPS).toEqual(expect.arrayContaining(['api-gateway', 'agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery']));
  });

  it.each(APPS)('%s: no two top-level folders import each other (beyond the known pairs)', (app) => {
    expect(twoWayImports(sourcesOf(app))).toEqual(KNOWN[app] ?? []);
  });

  it('reports a two-way import however it is spelled, and leaves specs, fakes and the root out', () => {
    const files: SourceFile[] = [
      { path: 'runs/runs.service.ts', text: "import { RunRecorder } from '../execution/run-recorder';" },
      { path: 'execution/run-executor.ts', text: "import type { RunsService } from '../runs/./runs.service';" },
      { path: 'admission/admission.service.ts', text: "export { RunsService } from '../runs/runs.service';" },
      { path: 'runs/runs.service.spec.ts', text: "import { x } from '../admission/admission.service';" },
      { path: 'runs/runs.store.fake.ts', text: "import { x } from '../admission/admission.service';" },
      { path: 'app.module.ts', text: "import { x } from './runs/runs.service';" },
      { path: 'runs/x.ts', text: "import { y } from '../app.module';" },
    ];
    expect(twoWayImports(files)).toEqual(['execution <-> runs']);
  });
});
