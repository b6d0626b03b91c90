import { buildAdminCli, runAdminAction } from '../../apps/agents-service/src/cli/admin-cli';
import { TestSystem } from './test-system';

/** Runs `npm run cli -- <args>` in-process against the system's database; `password` stands for standard input. */
export async function runCli(system: TestSystem, args: string[], password?: string): Promise<any> {
  const lines: string[] = [];
  const program = buildAdminCli(
    (action) => runAdminAction(action, system.baseEnv(), (line) => lines.push(line)),
    async () => password ?? '',
  );
  program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  await program.parseAsync(['node', 'cli', ...args]);
  if (lines.length !== 1) throw new Error(`cli ${args.join(' ')} printed ${lines.length} lines`);
  return JSON.parse(lines[0]);
}
