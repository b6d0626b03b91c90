import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ConfigService } from '@nestjs/config';
import { WebhooksEnv } from '../config/webhooks.env';
import { WebhookSender } from './webhook-sender';

describe(WebhookSender.name, () => {
  let receiver: Server;
  let url: string;
  let answer: (res: ServerResponse) => void;
  const seen: IncomingHttpHeaders[] = [];
  let sut: WebhookSender;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      seen.push(req.headers);
      req.resume().on('end', () => answer(res));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const settings: Partial<WebhooksEnv> = { WEBHOOK_TIMEOUT_MS: 2000, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true };
    sut = new WebhookSender({ get: (key: keyof WebhooksEnv) => settings[key] } as unknown as ConfigService<WebhooksEnv, true>);
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

  it('keeps an answer with NUL bytes recordable (PostgreSQL text cannot hold them)', async () => {
    answer = (res) => res.writeHead(500).end('bad\u0000 gateway');

    expect(await send()).toMatchObject({ statusCode: 500, responseBody: 'bad gateway' });
  });
});
