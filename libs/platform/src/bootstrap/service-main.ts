import { ServiceEntryPoints } from './service-definition';
import { exitCleanlyOnSignals } from './shutdown-signals';

/**
 * The command line of every back-end app: `main.js` runs it, `main.js migrate`
 * applies its schema's migrations and exits. A bad setting stops it with the list.
 */
export function runServiceMain(name: string, entry: ServiceEntryPoints): void {
  const command = process.argv[2] ?? 'start';
  const work =
    command === 'migrate'
      ? entry.migrate().then((applied) => {
          process.stdout.write(`${name}: ${applied.length} migration(s) applied${applied.length ? `: ${applied.join(', ')}` : ''}\n`);
        })
      : entry.start().then((app) => exitCleanlyOnSignals(app));
  work.catch((error: Error) => {
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(1);
  });
}
