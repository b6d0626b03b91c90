import { KeyRevocationRegistry } from './key-revocation.registry';

/** The Redis side of revocation in memory: the markers gateways check, and the last-use times they record. */
export class FakeKeyRevocationRegistry implements Pick<KeyRevocationRegistry, keyof KeyRevocationRegistry> {
  readonly markers = new Set<string>();
  readonly lastUsed = new Map<string, number>();
  /** Set to make the next marker write fail, as when Redis is unreachable. */
  failNextMark = false;

  async markRevoked(keyId: string): Promise<void> {
    if (this.failNextMark) {
      this.failNextMark = false;
      throw new Error('Redis is unreachable');
    }
    this.markers.add(keyId);
  }

  async clear(keyId: string): Promise<void> {
    this.markers.delete(keyId);
  }

  async lastUsedTimes(keyIds: string[]): Promise<Map<string, number>> {
    return new Map(keyIds.flatMap((id) => (this.lastUsed.has(id) ? [[id, this.lastUsed.get(id)!] as const] : [])));
  }

  async flushLastUsed(write: (times: Map<string, number>) => Promise<void>): Promise<number> {
    const times = new Map(this.lastUsed);
    if (times.size === 0) return 0;
    this.lastUsed.clear();
    try {
      await write(times);
    } catch (error) {
      for (const [id, ms] of times) if (ms > (this.lastUsed.get(id) ?? 0)) this.lastUsed.set(id, ms);
      throw error;
    }
    return times.size;
  }
}
