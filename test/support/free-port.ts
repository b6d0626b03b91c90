import { createServer } from 'node:net';

/** Ports this test process has handed out: a closed port is free again, so the kernel may offer it twice. */
const handedOut = new Set<number>();

/** A port nothing listens on now and not handed out before: the apps bind theirs moments later. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await unusedPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
