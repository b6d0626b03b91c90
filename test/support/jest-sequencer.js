// jest's order (failed last time first, then slowest first), with the files marked `@run-alone` ahead of all:
// they then run back to back while the other worker waits, rather than each waiting for a long file to end.
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

/** The file's leading comment block, where jest reads pragmas (jest-docblock's rule). */
const DOCBLOCK = /^\s*(\/\*\*?(.|\r?\n)*?\*\/)/;

function runsAlone(path) {
  const docblock = DOCBLOCK.exec(readFileSync(path, 'utf8'))?.[1] ?? '';
  return /^\s*\*?\s*@run-alone\b/m.test(docblock) || /\/\*\*\s*@run-alone\b/.test(docblock);
}

class RunAloneFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((t) => runsAlone(t.path)), ...sorted.filter((t) => !runsAlone(t.path))];
  }
}

module.exports = RunAloneFirstSequencer;
