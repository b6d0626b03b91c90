import { RuntimeLine } from '@aas/contracts';

const REDACTED = '[redacted]';

/**
 * Writes protocol lines. Each line is one JSON.stringify'd object, so a newline or a `{"type":…}` inside
 * a tool's output stays an escaped string of its line and never becomes a line of its own. Secrets the
 * runtime holds (the model's key, the dispatch signature, MCP credentials) are replaced wherever they
 * would appear in a string or an object key, never in the line's JSON itself (a secret `true` or `1234`
 * must not turn `"truncated":true` into broken JSON).
 */
export class LineWriter {
  private readonly secrets: string[];
  private ended = false;

  constructor(
    private readonly sink: (chunk: string) => void,
    secrets: (string | undefined)[],
  ) {
    // The longest first, so a secret containing another is replaced whole.
    this.secrets = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4).sort((a, b) => b.length - a.length);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  write(line: RuntimeLine): void {
    if (this.ended) return;
    this.sink(`${this.serialize(line)}\n`);
  }

  /** Writes a terminal line (completed or failed); nothing is written after it. */
  end(line: RuntimeLine): void {
    this.write(line);
    this.ended = true;
  }

  serialize(line: RuntimeLine): string {
    return JSON.stringify(line, (_key, value: unknown) => this.redactValue(value));
  }

  private redactValue(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    // Keys too: a model's tool input may use anything as a key.
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [this.redact(key), inner]));
    }
    return value;
  }

  private redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) result = result.split(secret).join(REDACTED);
    return result;
  }
}
