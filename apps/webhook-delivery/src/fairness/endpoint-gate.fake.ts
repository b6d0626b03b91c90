import { EndpointHealth } from './circuit-breaker';
import { Admission, CircuitChange, Endpoint, EndpointGate, Pass } from './endpoint-gate';

type Held = Exclude<Admission, { kind: 'admitted' }>;

/**
 * The endpoint gate without Redis, for unit tests of the delivery worker: it admits every delivery
 * unless a test has queued what the next admissions answer, and keeps what was given back; left out of the build.
 */
export class FakeEndpointGate implements Pick<EndpointGate, 'admit' | 'release' | 'circuitsOpenUntil'> {
  /** The webhooks whose circuit is open, and until when. */
  readonly openUntil = new Map<string, Date>();
  /** What the next admissions answer, in order; once empty, deliveries are admitted. */
  readonly holds: Held[] = [];
  /** What the next release answers about the circuit. */
  nextChange: CircuitChange | undefined;
  /** The next release fails (Redis unreachable). */
  failNextRelease = false;
  readonly admitted: Pass[] = [];
  readonly released: Array<{ pass: Pass; health: EndpointHealth }> = [];

  async admit(endpoint: Endpoint): Promise<Admission> {
    const held = this.holds.shift();
    if (held) return held;
    const pass: Pass = { ...endpoint, leaseId: `lease-${this.admitted.length + 1}`, probe: false };
    this.admitted.push(pass);
    return { kind: 'admitted', pass };
  }

  async release(pass: Pass, health: EndpointHealth): Promise<CircuitChange | undefined> {
    if (this.failNextRelease) {
      this.failNextRelease = false;
      throw new Error('Redis is unreachable');
    }
    this.released.push({ pass, health });
    const change = this.nextChange;
    this.nextChange = undefined;
    return change;
  }

  async circuitsOpenUntil(webhookIds: string[]): Promise<Map<string, Date>> {
    return new Map(webhookIds.flatMap((id) => (this.openUntil.has(id) ? [[id, this.openUntil.get(id)!] as const] : [])));
  }

  /** Slots admitted and not given back. */
  get inFlight(): number {
    return this.admitted.length - this.released.length;
  }
}
