import { ConfigService } from '@nestjs/config';
import { ServiceUnavailableError } from '@aas/problem-details';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RunsEnv } from '../config/runs.env';
import { ToolCatalogueSource } from './tool-catalogue';

const TOOL = { name: 'files.read', description: 'Read', input_schema: { type: 'object' }, icon: 'file', server: 'files' };

describe(ToolCatalogueSource.name, () => {
  let server: Server;
  let url: string;
  let requests = 0;
  let status = 200;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      // Slow enough that callers at once overlap.
      setTimeout(() => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ tools: [TOOL] })), 30);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    requests = 0;
    status = 200;
  });

  const source = (settings: Partial<RunsEnv>) =>
    new ToolCatalogueSource({ get: (name: keyof RunsEnv) => settings[name] } as unknown as ConfigService<RunsEnv, true>);

  it('asks the runtime once for the callers within TOOL_CATALOGUE_CACHE_MS, at once or after', async () => {
    const sut = source({ AGENT_RUNTIME_URL: url, TOOL_CATALOGUE_CACHE_MS: 60_000 });
    const answers = await Promise.all([sut.list(), sut.list(), sut.list()]);
    await sut.list();
    expect(answers).toEqual([{ tools: [TOOL] }, { tools: [TOOL] }, { tools: [TOOL] }]);
    expect(requests).toBe(1);
  });

  it('asks again after a failure, which it does not keep', async () => {
    const sut = source({ AGENT_RUNTIME_URL: url, TOOL_CATALOGUE_CACHE_MS: 60_000 });
    status = 502;
    await expect(sut.list()).rejects.toBeInstanceOf(ServiceUnavailableError);
    status = 200;
    expect(await sut.list()).toEqual({ tools: [TOOL] });
    expect(requests).toBe(2);
  });

  it('gives the icons of the catalogue, and none (not an error) when it cannot be had', async () => {
    const icons = await source({ AGENT_RUNTIME_URL: url, TOOL_CATALOGUE_CACHE_MS: 0 }).icons();
    expect([icons('files.read'), icons('unknown')]).toEqual(['file', null]);
    status = 500;
    const none = await source({ AGENT_RUNTIME_URL: url, TOOL_CATALOGUE_CACHE_MS: 0 }).icons();
    expect(none('files.read')).toBeNull();
  });

  it('has no tools with the built-in runtime, and asks nothing', async () => {
    expect(await source({ TOOL_CATALOGUE_CACHE_MS: 0 }).list()).toEqual({ tools: [] });
    expect(requests).toBe(0);
  });
});
