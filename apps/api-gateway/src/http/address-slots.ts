/** Counts what each client address holds (connections or requests in progress), up to a limit per address. */
export class AddressSlots {
  private readonly held = new Map<string, number>();
  private heldInAll = 0;

  constructor(readonly limitPerAddress: number) {}

  /** Takes one slot for the address; false, and nothing taken, when it already holds its limit. */
  take(address: string): boolean {
    const holding = this.held.get(address) ?? 0;
    if (holding >= this.limitPerAddress) return false;
    this.held.set(address, holding + 1);
    this.heldInAll += 1;
    return true;
  }

  release(address: string): void {
    const holding = this.held.get(address);
    if (holding === undefined) return;
    if (holding <= 1) this.held.delete(address);
    else this.held.set(address, holding - 1);
    this.heldInAll -= 1;
  }

  holding(address: string): number {
    return this.held.get(address) ?? 0;
  }

  get total(): number {
    return this.heldInAll;
  }
}
