import { buildAdminCli, runAdminAction } from '../apps/agents-service/src/cli/admin-cli';
import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';

describe('Admin command line', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
  });
  afterAll(() => system.stop());

  /** Runs `npm run cli -- <args>` in-process against this test's database and returns the JSON it printed. */
  async function cli(...args: string[]): Promise<any> {
    const lines: string[] = [];
    const program = buildAdminCli((action) => runAdminAction(action, system.baseEnv(), (line) => lines.push(line)));
    program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    await program.parseAsync(['node', 'cli', ...args]);
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]);
  }

  it('creates a user whose first key works, another key for it, and revokes that key', async () => {
    const user = await cli('users', 'create', '--email', 'Ops@Example.test');
    expect(Object.keys(user).sort()).toEqual(['api_key', 'user_id']);
    const me = await http(system.url(), 'GET', '/v1/me', { key: user.api_key });
    expect(me.status).toBe(200);
    expect(me.body.user_id).toBe(user.user_id);

    const key = await cli('api-keys', 'create', '--user', user.user_id, '--name', 'deploy');
    expect(Object.keys(key).sort()).toEqual(['api_key', 'key_id']);
    expect((await http(system.url(), 'GET', '/v1/me', { key: key.api_key })).body.user_id).toBe(user.user_id);

    expect(await cli('api-keys', 'revoke', key.key_id)).toEqual({ revoked: true });
    expectProblem(await http(system.url(), 'GET', '/v1/me', { key: key.api_key }), 401);
    expect((await http(system.url(), 'GET', '/v1/me', { key: user.api_key })).status).toBe(200);
  });

  it('refuses a second user with the same email, a key for an unknown user, and an unknown key id', async () => {
    await cli('users', 'create', '--email', 'twice@example.test');
    await expect(cli('users', 'create', '--email', 'TWICE@example.test')).rejects.toThrow(/already exists/);
    await expect(cli('api-keys', 'create', '--user', '00000000-0000-4000-8000-000000000000', '--name', 'x')).rejects.toThrow(
      /not found/,
    );
    await expect(cli('api-keys', 'revoke', '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/not found/);
  });

  it('requires the documented options', async () => {
    await expect(cli('users', 'create')).rejects.toThrow(/--email/);
    await expect(cli('api-keys', 'create', '--user', 'u')).rejects.toThrow(/--name/);
  });
});
