/**
 * What a gateway knows about the revocations agents-service announces on Redis
 * pub/sub: API keys revoked, console sessions ended, agents deleted.
 * Announcements are lost while the subscription is down, so a key check may be
 * trusted later only if it was made during the current subscription and no
 * revocation arrived while it ran; listeners of `onGap` learn that some may
 * have been missed.
 */
export class RevocationState {
  private readonly keyListeners: Array<(keyId: string) => void> = [];
  private readonly sessionListeners: Array<(sessionId: string) => void> = [];
  private readonly agentListeners: Array<(userId: string, agentId: string) => void> = [];
  private readonly gapListeners: Array<() => void> = [];
  private listening = false;
  /** Bumped on every (re)subscription: what was checked before a gap must be checked again. */
  private generation = 0;
  private revocations = 0;
  private announced = 0;

  onRevoked(listener: (keyId: string) => void): void {
    this.keyListeners.push(listener);
  }

  onSessionEnded(listener: (sessionId: string) => void): void {
    this.sessionListeners.push(listener);
  }

  onAgentDeleted(listener: (userId: string, agentId: string) => void): void {
    this.agentListeners.push(listener);
  }

  /** Called on every resubscription after the first: announcements may have been missed in between. */
  onGap(listener: () => void): void {
    this.gapListeners.push(listener);
  }

  subscribed(): void {
    this.generation += 1;
    this.listening = true;
    if (this.generation > 1) for (const listener of this.gapListeners) listener();
  }

  unsubscribed(): void {
    this.listening = false;
  }

  /** How many announcements of any kind arrived so far: one that arrives while a stream opens is checked by it. */
  get announcements(): number {
    return this.announced;
  }

  revoked(keyId: string): void {
    this.announced += 1;
    this.revocations += 1;
    for (const listener of this.keyListeners) listener(keyId);
  }

  sessionEnded(sessionId: string): void {
    this.announced += 1;
    for (const listener of this.sessionListeners) listener(sessionId);
  }

  agentDeleted(userId: string, agentId: string): void {
    this.announced += 1;
    for (const listener of this.agentListeners) listener(userId, agentId);
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
