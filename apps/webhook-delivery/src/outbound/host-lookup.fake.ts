import { HostLookup } from './webhook-url-check';

/**
 * DNS in memory: the addresses each name resolves to (receiver.example.com to a public one, localhost
 * to loopback, unless told otherwise); other names do not resolve. `hold` keeps look-ups unanswered until `release`; left out of the build.
 */
export class FakeHostLookup implements HostLookup {
  readonly names = new Map<string, string[]>([
    ['receiver.example.com', ['93.184.216.34']],
    ['localhost', ['127.0.0.1', '::1']],
  ]);
  readonly asked: string[] = [];
  private held: Array<() => void> | undefined;

  async addresses(hostname: string): Promise<string[]> {
    this.asked.push(hostname);
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
    const addresses = this.names.get(hostname);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  }

  hold(): void {
    this.held = [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = undefined;
    for (const resolve of waiting) resolve();
  }
}
