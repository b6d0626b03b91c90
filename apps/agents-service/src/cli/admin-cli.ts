import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DomainError } from '@aas/problem-details';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@aas/contracts';
import { Command, CommanderError } from 'commander';
import { randomBytes } from 'node:crypto';
import { migrateAgentsSchema } from '../agents-service.app';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { ConsoleSessionsService } from '../console-sessions/console-sessions.service';
import { UsersService } from '../users/users.service';
import { AdminCliModule } from './admin-cli.module';

type Action = (app: INestApplicationContext) => Promise<unknown>;

/** Reads a new password: from standard input by default (never from the command line, which ps and shell history show). */
export type PasswordSource = () => Promise<string>;

/** The admin command line of docs/operations.md; each command prints one JSON object on stdout. */
export function buildAdminCli(run: (action: Action) => Promise<void>, readPassword: PasswordSource = readLineFromStdin): Command {
  const program = new Command('cli').description('Agent Automation Service administration').exitOverride();

  const users = program.command('users').description('manage users');
  users
    .command('create')
    .description('create a user and its first API key')
    .requiredOption('--email <email>', 'email address of the user')
    .action((opts: { email: string }) =>
      run(async (app) => {
        const user = await app.get(UsersService).createUser(opts.email);
        const key = await app.get(ApiKeysService).create(user.id, 'default');
        return { user_id: user.id, api_key: key.api_key };
      }),
    );

  users
    .command('set-password')
    .description(
      "set a user's console password (read from standard input), end all of the user's console sessions, and list the API keys console sessions made since the last reset",
    )
    .requiredOption('--email <email>', 'email address of the user')
    .option('--generate', 'make a random password and print it instead of reading one')
    .option('--revoke-session-keys', 'also revoke the listed keys (a stolen session may have made them)')
    .action((opts: { email: string; generate?: boolean; revokeSessionKeys?: boolean }) =>
      run(async (app) => {
        const password = opts.generate ? randomBytes(18).toString('base64url') : await readPassword();
        if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
          throw new Error(`the password must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`);
        }
        const result = await app.get(ConsoleSessionsService).setPassword(opts.email, password, { revokeSessionKeys: opts.revokeSessionKeys });
        return opts.generate ? { ...result, password } : result;
      }),
    );

  program
    .command('setup-token')
    .description('a one-time token for the console first-run page (replaces earlier ones; only while no user can sign in)')
    .action(() => run((app) => app.get(ConsoleSessionsService).issueSetupToken()));

  const apiKeys = program.command('api-keys').description('manage API keys');
  apiKeys
    .command('create')
    .description('create an API key for a user')
    .requiredOption('--user <user_id>', 'id of the user')
    .requiredOption('--name <name>', 'name of the key (1-128 characters)')
    .action((opts: { user: string; name: string }) =>
      run(async (app) => {
        if (opts.name.length < 1 || opts.name.length > 128) throw new Error('--name must be 1-128 characters');
        const user = /^[0-9a-f-]{36}$/i.test(opts.user) ? await app.get(UsersService).findById(opts.user) : null;
        if (!user) throw new Error(`user ${opts.user} not found`);
        const key = await app.get(ApiKeysService).create(user.id, opts.name);
        return { key_id: key.key_id, api_key: key.api_key };
      }),
    );
  apiKeys
    .command('revoke')
    .description('revoke an API key; it stops working on the next request')
    .argument('<key_id>', 'id of the key')
    .action((keyId: string) => run((app) => app.get(ApiKeysService).revokeAnyUsersKey(keyId)));

  return program;
}

/** Runs one command's action against the agents schema (migrated first) and writes its JSON result. */
export async function runAdminAction(
  action: Action,
  overrides: Record<string, string> = {},
  write: (line: string) => void = (line) => process.stdout.write(line),
): Promise<void> {
  await migrateAgentsSchema(overrides);
  const app = await NestFactory.createApplicationContext(AdminCliModule.forRoot(overrides), { logger: ['error'] });
  try {
    write(`${JSON.stringify(await action(app))}\n`);
  } finally {
    await app.close();
  }
}

/** The first line of standard input, without its line end. */
async function readLineFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('new password (input is shown; pipe it in to hide it): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
}

if (require.main === module) {
  buildAdminCli((action) => runAdminAction(action))
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      if (error instanceof CommanderError) process.exit(error.exitCode);
      const message = error instanceof DomainError || error instanceof Error ? error.message : String(error);
      process.stderr.write(`error: ${message}\n`);
      process.exit(1);
    });
}
