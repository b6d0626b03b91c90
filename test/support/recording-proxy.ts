import { IncomingMessage, Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request that went through the proxy: its headers and its body as sent. */
export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * An HTTP proxy in front of one server that records every request it passes on (here: what runs-service
 * dispatches to the agent runtime). Answers stream through as they come; a client that closes its
 * request closes the upstream one too, so a cancel still reaches the server behind.
 */
export class RecordingProxy {
  readonly requests: ProxiedRequest[] = [];
  private url_ = '';

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  static async start(target: string): Promise<RecordingProxy> {
    const proxy: RecordingProxy = new RecordingProxy(
      createServer((req, res) => void proxy.pass(req, res)),
      new URL(target),
    );
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.url_ = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    return proxy;
  }

  get url(): string {
    return this.url_;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async pass(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    this.requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: body.toString('utf8') });
    const upstream = request(
      { host: this.target.hostname, port: this.target.port, method: req.method, path: req.url, headers: { ...req.headers, host: this.target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  }
}
