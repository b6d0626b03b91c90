import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { ConfigService } from '@nestjs/config';
import { InstallationChainKey } from '@aas/platform';
import { WebhooksEnv } from '../config/webhooks.env';
import { RESPONSE_HEADER_VALUE_CHARS, RESPONSE_HEADERS_KEPT, RESPONSE_READ_BYTES, WebhookSender, keptResponseHeaders } from './webhook-sender';
import { eventually } from '../../../../test/support/eventually';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe(WebhookSender.name, () => {
  let receiver: Server;
  let url: string;
  let answer: (res: ServerResponse) => void;
  const seen: IncomingHttpHeaders[] = [];
  const connections: Socket[] = [];
  let sut: WebhookSender;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      seen.push(req.headers);
      req.resume().on('end', () => answer(res));
    });
    receiver.on('connection', (socket) => connections.push(socket));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    sut = new WebhookSender(config({ WEBHOOK_TIMEOUT_MS: 2000, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_SECRET_KEY: KEY }));
  });
  afterAll(async () => {
    await sut.onApplicationShutdown();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const send = () => sut.send({ url, secret: 'whsec_c2VjcmV0', deliveryId: 'd-1', event: 'run.started', body: '{"event":"run.started"}' });

  it('sends both signatures and the delivery id, and keeps the status and answer', async () => {
    answer = (res) => res.writeHead(201).end('thanks');

    const result = await send();

    expect(result).toMatchObject({ statusCode: 201, error: null, responseBody: 'thanks' });
    expect(seen.at(-1)).toMatchObject({ 'webhook-id': 'd-1', 'x-service-delivery': 'd-1', 'x-service-event': 'run.started' });
    expect(seen.at(-1)?.['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(seen.at(-1)?.['webhook-signature']).toMatch(/^v1,/);
  });

  it("keeps the headers it sent, exactly as the receiver got them, and the answer's headers", async () => {
    answer = (res) => res.writeHead(202, { 'x-receiver': 'r1', 'set-cookie': ['a=1', 'b=2'] }).end();

    const result = await send();

    const sent = seen.at(-1)!;
    expect(Object.keys(result.requestHeaders).sort()).toEqual(
      ['content-type', 'user-agent', 'webhook-id', 'webhook-signature', 'webhook-timestamp', 'x-service-delivery', 'x-service-event', 'x-service-signature'].sort(),
    );
    for (const [name, value] of Object.entries(result.requestHeaders)) expect(sent[name]).toBe(value);
    expect(JSON.stringify(result.requestHeaders)).not.toContain('c2VjcmV0');
    expect(result.responseHeaders).toMatchObject({ 'x-receiver': 'r1', 'set-cookie': 'a=1, b=2' });
  });

  it('keeps no answer headers when there was no answer, and says when the address was refused', async () => {
    const strict = new WebhookSender(config({ WEBHOOK_TIMEOUT_MS: 2000, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false, WEBHOOK_SECRET_KEY: KEY }));
    try {
      const result = await strict.send({ url, secret: 'whsec_c2VjcmV0', deliveryId: 'd-2', event: 'run.started', body: '{}' });
      expect(result).toMatchObject({ statusCode: null, responseHeaders: null, addressRefused: true, error: expect.stringMatching(/^refused: /) });
      expect(result.requestHeaders['webhook-id']).toBe('d-2');
    } finally {
      await strict.onApplicationShutdown();
    }
  });

  it("adds the installation's chain header, bound to the delivery, its body and the inbound endpoint it is sent to, when the delivery's run is in a chain", async () => {
    answer = (res) => res.writeHead(204).end();
    const chain = { rootRunId: '6c0b1f0e-8a4e-4c4e-9b7e-0d4c8f1e2a3b', depth: 2 };
    const body = '{"event":"run.started"}';
    const endpoint = `${chain.rootRunId}/token-1`;
    await sut.send({ url: `${url}s/${endpoint}`, secret: 'whsec_c2VjcmV0', deliveryId: 'd-2', event: 'run.started', body, chain });
    const header = seen.at(-1)?.['aas-chain'] as string;
    const key = InstallationChainKey.derivedFrom(KEY);
    expect(key.verify(header, { deliveryId: 'd-2', body, target: endpoint, now: new Date() })).toEqual(chain);
    expect(key.verify(header, { deliveryId: 'd-2', body, target: `${chain.rootRunId}/token-2`, now: new Date() })).toBeNull();
    await send();
    expect(seen.at(-1)).not.toHaveProperty('aas-chain');
  });

  it('keeps an answer with NUL bytes recordable (PostgreSQL text cannot hold them)', async () => {
    answer = (res) => res.writeHead(500).end('bad\u0000 gateway');

    expect(await send()).toMatchObject({ statusCode: 500, responseBody: 'bad gateway' });
  });

  it('reads a few KiB of an endless answer, then closes the connection, and records the status', async () => {
    let written = 0;
    let closed = false;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    answer = (res) => {
      res.on('close', () => (closed = true));
      res.writeHead(200, { 'content-type': 'text/plain' });
      // As fast as the client takes it, and never ending: only the client closing the connection stops it.
      const pump = () => {
        while (!res.destroyed && written < 1024 ** 3) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    };

    const result = await send();

    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(result.responseBody).toBe('x'.repeat(2048));
    await waitFor(() => closed);
    // What got written before the close is what the kernel's socket buffers and one read took, not a gigabyte.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('keeps the first 2,048 characters of a multi-byte answer whole', async () => {
    // 3 bytes of UTF-8 each: the characters kept need all the bytes read.
    const text = '€'.repeat(RESPONSE_READ_BYTES);
    answer = (res) => res.writeHead(400).end(text);

    expect(await send()).toMatchObject({ statusCode: 400, responseBody: '€'.repeat(2048) });
  });

  it('still times out on an answer that trickles', async () => {
    const slow = new WebhookSender(config({ WEBHOOK_SECRET_KEY: KEY, WEBHOOK_TIMEOUT_MS: 300, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }));
    let timer: NodeJS.Timeout | undefined;
    answer = (res) => {
      res.writeHead(200);
      timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
    };
    try {
      const result = await slow.send({ url, secret: 'whsec_c2VjcmV0', deliveryId: 'd-2', event: 'run.started', body: '{}' });

      expect(result).toMatchObject({ statusCode: null, error: 'no answer within 300 ms' });
      expect(result.durationMs).toBeLessThan(2000);
    } finally {
      clearInterval(timer);
      await slow.onApplicationShutdown();
    }
  });

  it('keeps the connection for the next delivery after a short answer', async () => {
    answer = (res) => res.writeHead(204).end();
    await send();
    const before = connections.length;

    await send();
    await send();

    expect(connections.length).toBe(before);
  });
});

function config(settings: Partial<WebhooksEnv>): ConfigService<WebhooksEnv, true> {
  return { get: (key: keyof WebhooksEnv) => settings[key] } as unknown as ConfigService<WebhooksEnv, true>;
}

async function waitFor(condition: () => boolean, ms = 2000): Promise<void> {
  await eventually('the condition', condition, Boolean, ms, 10);
}

describe(keptResponseHeaders.name, () => {
  it(`keeps the first ${RESPONSE_HEADERS_KEPT} headers, each value cut to ${RESPONSE_HEADER_VALUE_CHARS} characters, names in lower case`, () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`X-H${i}`, 'v'.repeat(600)]));
    const kept = keptResponseHeaders(many);
    expect(Object.keys(kept)).toHaveLength(RESPONSE_HEADERS_KEPT);
    expect(kept['x-h0']).toHaveLength(RESPONSE_HEADER_VALUE_CHARS);
    expect(keptResponseHeaders({ a: 'x\u0000y', b: undefined })).toEqual({ a: 'xy' });
  });
});
