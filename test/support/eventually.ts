/** Polls `read` every `everyMs` until `ok`, for at most `ms`; then fails naming what was awaited and what was last seen. */
export async function eventually<T>(what: string, read: () => T | Promise<T>, ok: (value: T) => boolean, ms = 20_000, everyMs = 100): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
