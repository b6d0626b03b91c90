import { AddressSlots } from './address-slots';

describe(AddressSlots.name, () => {
  it('gives each address its own slots up to the limit, and frees them on release', () => {
    const sut = new AddressSlots(2);
    expect([sut.take('a'), sut.take('a'), sut.take('a')]).toEqual([true, true, false]);
    expect(sut.take('b')).toBe(true);
    expect(sut.total).toBe(3);
    sut.release('a');
    expect(sut.holding('a')).toBe(1);
    expect(sut.take('a')).toBe(true);
  });

  it('forgets an address that holds nothing, and ignores a release it does not hold', () => {
    const sut = new AddressSlots(1);
    sut.take('a');
    sut.release('a');
    sut.release('a');
    expect(sut.holding('a')).toBe(0);
    expect(sut.total).toBe(0);
  });
});
