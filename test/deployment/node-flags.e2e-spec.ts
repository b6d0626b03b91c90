import { readRepoFile } from './support/repo';

// scripts/apps.js is CommonJS: the list `npm start` and the benchmarks give every app.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { NODE_FLAGS } = require('../../scripts/apps.js') as { NODE_FLAGS: string[] };

describe('V8 flags', () => {
  it('npm start and the benchmarks run the apps with the flags the container image sets', () => {
    const image = /NODE_OPTIONS=(\S+)/.exec(readRepoFile('Dockerfile'));
    expect(image).not.toBeNull();
    expect(NODE_FLAGS).toEqual(image![1].split(/\s+/));
    expect(readRepoFile('scripts/start.js')).toMatch(/args: \[\.\.\.NODE_FLAGS, entry\(app\)\]/);
  });
});
