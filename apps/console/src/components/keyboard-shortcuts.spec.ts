import { SEQUENCE_MS, SHORTCUTS, ShortcutReader } from './keyboard-shortcuts';

const does = (reader: ShortcutReader, keys: string[], start = 1000, gap = 100) => keys.map((key, i) => reader.read(key, start + i * gap)?.action);

describe(ShortcutReader.name, () => {
  it('reads single keys and sequences', () => {
    const sut = new ShortcutReader();
    expect(does(sut, ['/'])).toEqual([{ focus: 'search' }]);
    expect(does(sut, ['?'])).toEqual([{ show: 'help' }]);
    expect(does(sut, ['g', 'a'])).toEqual([undefined, { go: '/agents' }]);
    expect(does(sut, ['g', 'k'])).toEqual([undefined, { go: '/settings/api-keys' }]);
  });

  it('forgets a first key left waiting too long, and keys that start nothing', () => {
    const sut = new ShortcutReader();
    expect(sut.read('g', 0)).toBeUndefined();
    expect(sut.read('a', SEQUENCE_MS + 1)).toBeUndefined();
    expect(does(sut, ['x', 'a', 'g', 'x', 'a'])).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('starts again on a key that breaks a sequence: g g a goes to the agents, g ? shows the help', () => {
    expect(does(new ShortcutReader(), ['g', 'g', 'a'])).toEqual([undefined, undefined, { go: '/agents' }]);
    expect(does(new ShortcutReader(), ['g', '?'])).toEqual([undefined, { show: 'help' }]);
  });

  it('goes to all runs with g r, and lists no shortcut to a page the console does not have yet (the inbox)', () => {
    const reader = new ShortcutReader();
    reader.read('g', 0);
    expect(reader.read('r', 100)?.action).toEqual({ go: '/runs' });
    expect(SHORTCUTS.map((s) => s.keys.join(' '))).not.toEqual(expect.arrayContaining(['g i']));
  });
});
