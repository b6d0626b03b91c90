/**
 * What a gateway knows about key revocations announced on Redis pub/sub.
 * Announcements are lost while the subscription is down, so a key check may be
 * trusted later only if it was made during the current subscription and no
 * revocation arrived while it ran.
 */
export class RevocationState {
  private readonly listeners: Array<(keyId: string) => void> = [];
  private listening = false;
  /** Bumped on every (re)subscription: what was checked before a gap must be checked again. */
  private generation = 0;
  private revocations = 0;

  onRevoked(listener: (keyId: string) => void): void {
    this.listeners.push(listener);
  }

  subscribed(): void {
    this.generation += 1;
    this.listening = true;
  }

  unsubscribed(): void {
    this.listening = false;
  }

  revoked(keyId: string): void {
    this.revocations += 1;
    for (const listener of this.listeners) listener(keyId);
  }

  /** Taken before checking a key. */
  stamp(): RevocationStamp {
    return { generation: this.listening ? this.generation : -1, revocations: this.revocations };
  }

  /** A check begun at `stamp` may be trusted now: no announcement can have been missed since. */
  stillValid(stamp: RevocationStamp): boolean {
    return this.listening && stamp.generation === this.generation;
  }

  /** A check begun at `stamp` and ending now may be trusted from now on: valid, and no revocation arrived while it ran. */
  trustworthy(stamp: RevocationStamp): boolean {
    return this.stillValid(stamp) && stamp.revocations === this.revocations;
  }
}

export interface RevocationStamp {
  generation: number;
  revocations: number;
}
