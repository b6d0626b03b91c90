import { Agent, ClientRequest, IncomingHttpHeaders, request } from 'node:http';

export interface RawRequest {
  method: string;
  /** Sent exactly as given (no normalisation of `..` or percent-encoding, unlike fetch). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send this many bytes of spaces chunked (no Content-Length) instead of `body`. */
  chunkedBytes?: number;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

/**
 * A bare HTTP/1.1 client over node:http: what the fuzz sends reaches the
 * gateway byte for byte. Bodies are sent with their Content-Length; a server
 * that answers before reading a large body (413) may reset the connection
 * while it is still being written, which is not a failure once an answer
 * arrived.
 */
export class RawHttpClient {
  private readonly agent: Agent;

  constructor(
    private readonly base: URL,
    concurrency: number,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  }

  /**
   * One retry, on a new connection, when the connection was reset before any
   * answer: a kept-alive socket the server had just closed (after a 413 it
   * closes the connection it did not read to the end) is not an answer.
   */
  async send(req: RawRequest): Promise<RawResponse> {
    try {
      return await this.attempt(req, this.agent);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ECONNRESET' && code !== 'EPIPE') throw error;
      return this.attempt(req, false);
    }
  }

  private attempt(req: RawRequest, agent: Agent | false): Promise<RawResponse> {
    const started = Date.now();
    return new Promise<RawResponse>((resolve, reject) => {
      let settled = false;
      const headers: Record<string, string | number> = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = req.body.length;
      const outgoing = request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method: req.method,
          path: req.path,
          headers,
          agent,
          // Node would refuse some of the odd header values the fuzz sends on purpose.
          insecureHTTPParser: true,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', fail);
          incoming.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks), ms: Date.now() - started });
          });
        },
      );
      const timer = setTimeout(() => {
        outgoing.destroy(new Error(`no complete answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      function fail(error: Error) {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(error);
      }
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        // The answer may already be on its way (413 before the body was read): wait for it a little.
        if (error.code === 'EPIPE' || error.code === 'ECONNRESET') setTimeout(() => fail(error), 2000).unref();
        else fail(error);
      });
      if (req.chunkedBytes !== undefined) writeChunked(outgoing, req.chunkedBytes);
      else if (req.body !== undefined) outgoing.end(req.body);
      else outgoing.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Writes `total` bytes in 64 KiB chunks, stopping quietly if the server has already answered and closed. */
function writeChunked(out: ClientRequest, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = () => {
    while (sent < total && !out.destroyed) {
      sent += chunk.length;
      if (!out.write(chunk)) {
        out.once('drain', pump);
        return;
      }
    }
    if (!out.destroyed) out.end();
  };
  pump();
}
