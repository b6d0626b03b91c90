// Summarises the V8 CPU profiles a benchmark wrote with BENCH_CPU_PROF=<dir>: for each app, its
// self time by package, its functions by self time and, for the project's own code (dist/), by total time (itself and what it
// called), each with its file:line (the TypeScript source's, by the build's source maps), as shares of the app's busy samples.
//   node bench/support/profile-top.mjs <dir> [rows, default 15]
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';

const [dir, rowsArg] = process.argv.slice(2);
const ROWS = Number(rowsArg ?? 15);

const maps = new Map();
/** The TypeScript source line of a compiled frame, by the build's source map (undefined without one). */
function sourceOf(path, line, column) {
  if (!maps.has(path)) maps.set(path, existsSync(`${path}.map`) ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8'))) : undefined);
  const entry = maps.get(path)?.findEntry(line, column);
  if (!entry?.originalSource) return undefined;
  return `${entry.originalSource.replace(/^.*?\/((apps|libs)\/)/, '$1')}:${entry.originalLine + 1}`;
}

/** Where a frame's code comes from: an npm package, the project (apps/libs), Node itself, or V8 (GC, native). */
function packageOf({ url, functionName }) {
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (ours(url)) return '(the project)';
  if (url.startsWith('node:')) return '(node)';
  return functionName.startsWith('(') ? functionName : '(native)';
}

const ours = (path) => path.includes('/dist/') && !path.includes('/node_modules/');

function where({ functionName, url, lineNumber, columnNumber }) {
  const path = url.replace(/^file:\/\//, '');
  const file = (ours(path) && sourceOf(path, lineNumber, columnNumber)) || `${path.replace(/^.*\/node_modules\//, 'node_modules/') || '(native)'}:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'} ${file}`;
}

function summarise(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map();
  const total = new Map();
  const packages = new Map();
  // Shares of the time the app was busy: samples of an idle event loop are left out.
  const busy = profile.samples.filter((id) => byId.get(id).callFrame.functionName !== '(idle)');
  for (const id of busy) {
    const key = where(byId.get(id).callFrame);
    self.set(key, (self.get(key) ?? 0) + 1);
    const part = packageOf(byId.get(id).callFrame);
    packages.set(part, (packages.get(part) ?? 0) + 1);
    // Each frame once per sample, however deep its recursion.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at).callFrame;
      // A module's top level (line 0 of an anonymous function) is the app starting, not its work.
      if (!ours(frame.url) || (frame.functionName === '' && frame.lineNumber === 0)) continue;
      const k = where(frame);
      if (!seen.has(k)) total.set(k, (total.get(k) ?? 0) + 1);
      seen.add(k);
    }
  }
  return { samples: busy.length, self, total, packages };
}

const top = (map, samples) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, ROWS)
    .map(([key, n]) => `    ${((100 * n) / samples).toFixed(1).padStart(5)} %  ${key}`)
    .join('\n');

for (const app of readdirSync(dir)) {
  for (const file of readdirSync(join(dir, app)).filter((f) => f.endsWith('.cpuprofile'))) {
    const { samples, self, total, packages } = summarise(JSON.parse(readFileSync(join(dir, app, file), 'utf8')));
    process.stdout.write(`${app} (${file}, ${samples} busy samples)\n  self time by package:\n${top(packages, samples)}\n  self time:\n${top(self, samples)}\n  total time, the project's code:\n${top(total, samples)}\n\n`);
  }
}
