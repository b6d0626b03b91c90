/**
 * A small deterministic PRNG (sfc32, seeded through splitmix32) for the fuzz
 * tests. The same seed gives the same sequence on every machine, so a failing
 * run is replayed with FUZZ_SEED=<seed>. No property-based library is installed.
 */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** A seed from FUZZ_SEED when set (to replay a failure), else from the clock. */
  static seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
    const given = env.FUZZ_SEED;
    if (given !== undefined && given !== '') {
      const seed = Number(given);
      if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`FUZZ_SEED must be a non-negative integer, got ${given}`);
      return seed >>> 0;
    }
    return (Date.now() ^ (process.pid << 16)) >>> 0;
  }

  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 0x1_0000_0000;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)];
  }

  /** Up to `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, Math.min(count, copy.length));
  }

  string(length: number, alphabet: string): string {
    const chars = [...alphabet];
    let out = '';
    for (let i = 0; i < length; i++) out += this.pick(chars);
    return out;
  }

  /** A UUID v4 made from this generator (so it is reproducible too). */
  uuid(): string {
    const hex = this.string(32, '0123456789abcdef').split('');
    hex[12] = '4';
    hex[16] = '89ab'[this.int(0, 3)];
    const h = hex.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}
