import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface LintProblem {
  rule: string;
  severity: 'error' | 'warn';
  message: string;
  /** A JSON pointer into the document. */
  at: string;
}

/**
 * The problems Redocly's `recommended` ruleset finds in `document`, errors and warnings alike.
 * `rules` changes rules of that set (`{ 'rule-id': 'off' }`), each with its reason beside it in the caller.
 */
export function redoclyProblems(document: unknown, rules: Record<string, 'off' | 'warn' | 'error'> = {}): LintProblem[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'aas-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const out = execFileSync(process.execPath, [path.join(__dirname, 'redocly-lint.mjs'), file, JSON.stringify(rules)], { encoding: 'utf8' });
    return JSON.parse(out) as LintProblem[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
