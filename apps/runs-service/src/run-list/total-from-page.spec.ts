import { totalFromPage } from './total-from-page';

describe(totalFromPage.name, () => {
  it('is the rows before and on a page that is not full', () => {
    expect(totalFromPage(0, 100, 3)).toBe(3);
    expect(totalFromPage(200, 100, 42)).toBe(242);
  });

  it('is 0 for an empty first page', () => {
    expect(totalFromPage(0, 100, 0)).toBe(0);
  });

  it('is unknown for a full page, which may have more after it', () => {
    expect(totalFromPage(0, 100, 100)).toBeUndefined();
    expect(totalFromPage(300, 100, 100)).toBeUndefined();
  });

  it('is unknown for an empty page past the first, which may lie beyond the end', () => {
    expect(totalFromPage(100, 100, 0)).toBeUndefined();
  });
});
