import { lintMessages } from './lint-text';

/** [what the case is, the file it is linted as, its code]. */
export type SeamCase = [string, string, string];

const SEAM_RULES = ['no-restricted-imports', 'no-restricted-syntax'];

/**
 * One app's persistence seam in `npm run lint` (`persistenceSeam` in eslint.config.mjs): each broken case
 * is reported as code that belongs in a store, each legal one draws no message. The cases are linted with
 * the repository's own configuration and never written to disk (lint-text.ts).
 */
export function describeSeam(app: string, broken: SeamCase[], legal: SeamCase[]): void {
  describe(`the ${app} persistence seam of npm run lint`, () => {
    const all = [...broken, ...legal];
    const messages = new Map<string, string[]>();

    beforeAll(() => {
      const results = lintMessages(all.map(([, filePath, code]) => ({ filePath, code })), SEAM_RULES);
      all.forEach(([name], i) => messages.set(name, results[i]));
    });

    it.each(broken)('reports %s (%s)', (name, filePath) => {
      expect({ filePath, reported: messages.get(name)!.length > 0 }).toEqual({ filePath, reported: true });
      expect(messages.get(name)!.join('\n')).toMatch(/store/);
    });

    it.each(legal)('allows %s (%s)', (name, filePath) => {
      expect({ filePath, messages: messages.get(name) }).toEqual({ filePath, messages: [] });
    });
  });
}
