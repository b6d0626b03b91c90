import { createHmac } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A loopback webhook receiver: records every request; `answer` picks the status
 * (and headers) per path and attempt, after `holdMs`.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (path: string, nth: number) => { status: number; headers?: Record<string, string> } = () => ({ status: 204 });
  /** Requests received and not answered yet. */
  inFlight = 0;
  private server?: Server;

  constructor(private readonly holdMs = 0) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body, at: Date.now() });
        const { status, headers } = this.answer(path, this.received.filter((r) => r.path === path).length);
        this.inFlight += 1;
        setTimeout(() => {
          this.inFlight -= 1;
          res.writeHead(status, headers).end('ok');
        }, this.holdMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  deliveryIds(): string[] {
    return this.received.map((r) => String(r.headers['x-service-delivery']));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** What a receiver does (docs/decisions.md, Webhooks): both signatures over the raw body, compared in constant time in real code. */
export function verifyWebhookSignatures(secret: string, r: Received): void {
  const expected = 'sha256=' + createHmac('sha256', secret).update(r.body).digest('hex');
  expect(r.headers['x-service-signature']).toBe(expected);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`;
  expect(r.headers['webhook-signature']).toBe('v1,' + createHmac('sha256', key).update(signed).digest('base64'));
  expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  expect(r.headers['x-service-delivery']).toBe(r.headers['webhook-id']);
}
