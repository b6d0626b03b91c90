/** What a shortcut does: go to a page, focus the page's search field, or show the list of shortcuts. */
export type ShortcutAction = { go: string } | { focus: 'search' } | { show: 'help' };

export interface Shortcut {
  keys: string[];
  does: string;
  action: ShortcutAction;
}

/** Only shortcuts whose page exists are listed (the inbox comes with its page). */
export const SHORTCUTS: Shortcut[] = [
  { keys: ['/'], does: 'Search on this page (all runs: the run id; an agent’s runs: the goal filter; the deliveries’ status)', action: { focus: 'search' } },
  { keys: ['g', 'a'], does: 'Go to the agents', action: { go: '/agents' } },
  { keys: ['g', 'r'], does: 'Go to all runs', action: { go: '/runs' } },
  { keys: ['g', 'k'], does: 'Go to the API keys', action: { go: '/settings/api-keys' } },
  { keys: ['?'], does: 'Show these shortcuts', action: { show: 'help' } },
];

/** How long the second key of a sequence (`g` then `a`) may wait. */
export const SEQUENCE_MS = 1500;

/**
 * Reads keys one at a time: the shortcut the keys typed so far complete, or none; a key that starts
 * no sequence and ends none is forgotten.
 */
export class ShortcutReader {
  private pending: string[] = [];
  private pendingSince = 0;

  constructor(private readonly shortcuts: Shortcut[] = SHORTCUTS) {}

  read(key: string, now: number): Shortcut | undefined {
    const typed = now - this.pendingSince <= SEQUENCE_MS ? [...this.pending, key] : [key];
    const done = this.shortcuts.find((s) => s.keys.join(' ') === typed.join(' ')) ?? (typed.length > 1 ? this.shortcuts.find((s) => s.keys.join(' ') === key) : undefined);
    if (done) {
      this.pending = [];
      return done;
    }
    const starts = (keys: string[]) => this.shortcuts.some((s) => s.keys.length > keys.length && keys.every((k, i) => s.keys[i] === k));
    this.pending = starts(typed) ? typed : starts([key]) ? [key] : [];
    this.pendingSince = now;
    return undefined;
  }
}

/** Keys typed into a field are text, not shortcuts. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
