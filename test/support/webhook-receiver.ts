import { createHmac } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** The status it was answered with; undefined while held, and for good if the sender gave up first. */
  answered?: number;
  /** When the exchange ended: answered, or the sender hung up. */
  closedAt?: number;
}

/** What the receiver answers a request: after `holdMs` (the receiver's default when absent). */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  holdMs?: number;
}

/**
 * A loopback webhook receiver: records every request; `answer` picks the status
 * (and headers, and how long to hold it) per path and attempt, after `holdMs`.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (path: string, nth: number) => Answer = () => ({ status: 204 });
  /** Requests received and not answered yet. */
  inFlight = 0;
  /** Per path: requests open now (received, neither answered nor hung up on), and the most there ever were. */
  readonly open = new Map<string, number>();
  readonly mostOpen = new Map<string, number>();
  private server?: Server;
  private readonly holds = new Set<NodeJS.Timeout>();

  constructor(private readonly holdMs = 0) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const record: Received = { path, headers: req.headers, body, at: Date.now() };
        this.received.push(record);
        const { status, headers, holdMs } = this.answer(path, this.received.filter((r) => r.path === path).length);
        this.inFlight += 1;
        this.opened(path, +1);
        res.on('close', () => {
          record.closedAt = Date.now();
          this.opened(path, -1);
        });
        const hold = setTimeout(() => {
          this.holds.delete(hold);
          this.inFlight -= 1;
          if (res.destroyed) return;
          record.answered = status;
          res.writeHead(status, headers).end('ok');
        }, holdMs ?? this.holdMs);
        this.holds.add(hold);
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
    for (const hold of this.holds) clearTimeout(hold);
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private opened(path: string, by: number): void {
    const now = (this.open.get(path) ?? 0) + by;
    this.open.set(path, now);
    this.mostOpen.set(path, Math.max(now, this.mostOpen.get(path) ?? 0));
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
