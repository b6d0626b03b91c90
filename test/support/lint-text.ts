import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** One piece of code, linted as if it were the file at `filePath` (from the repository's root). */
export interface LintCase {
  filePath: string;
  code: string;
}

/**
 * Lints each case with the repository's own ESLint configuration and answers, per case, the
 * messages of the rules named. In a child process: ESLint loads eslint.config.mjs with import(),
 * which jest's module sandbox does not allow. The code is never written to disk.
 */
export function lintMessages(cases: LintCase[], ruleIds: string[]): string[][] {
  const script = `
    import { ESLint } from 'eslint';
    import { readFileSync } from 'node:fs';
    const { cases, ruleIds } = JSON.parse(readFileSync(0, 'utf8'));
    const eslint = new ESLint();
    const out = [];
    for (const { filePath, code } of cases) {
      const [result] = await eslint.lintText(code, { filePath });
      const fatal = result.messages.filter((m) => m.fatal).map((m) => m.message);
      if (fatal.length > 0) throw new Error(filePath + ' did not parse: ' + fatal.join('; '));
      out.push(result.messages.filter((m) => ruleIds.includes(m.ruleId)).map((m) => m.ruleId + ': ' + m.message));
    }
    process.stdout.write(JSON.stringify(out));`;
  const input = JSON.stringify({
    cases: cases.map((c) => ({ filePath: path.join(ROOT, c.filePath), code: `${c.code}\nexport const used = 1;\n` })),
    ruleIds,
  });
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, input, encoding: 'utf8' });
  return JSON.parse(output) as string[][];
}
