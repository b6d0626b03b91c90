import { RuntimeLine } from '@aas/contracts';

const REDACTED = '[redacted]';

/**
 * Writes protocol lines. Each line is one JSON.stringify'd object, so a newline or a `{"type":…}` inside
 * a tool's output stays an escaped string of its line and never becomes a line of its own. Secrets the
 * runtime holds (the model's key, the dispatch signature) are replaced wherever they would appear.
 */
export class LineWriter {
  private readonly secrets: string[];
  private ended = false;

  constructor(
    private readonly sink: (chunk: string) => void,
    secrets: (string | undefined)[],
  ) {
    // As they appear inside a JSON string; the longest first, so a secret containing another is replaced whole.
    this.secrets = secrets
      .filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
      .map((secret) => JSON.stringify(secret).slice(1, -1))
      .sort((a, b) => b.length - a.length);
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
    let text = JSON.stringify(line);
    for (const secret of this.secrets) text = text.split(secret).join(REDACTED);
    return text;
  }
}
