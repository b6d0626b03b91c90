/**
 * The list's total when the page itself proves it, so the count query can be
 * skipped: a page with rows that is not full is the last one. An empty page
 * proves a total only as the first one (0); further on it may be past the end.
 */
export function totalFromPage(offset: number, pageSize: number, rowsOnPage: number): number | undefined {
  if (rowsOnPage > 0 && rowsOnPage < pageSize) return offset + rowsOnPage;
  if (rowsOnPage === 0 && offset === 0) return 0;
  return undefined;
}
