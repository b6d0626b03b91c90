/** Previous/next through pages of `pageSize`, with where we are out of `total` ("about" when the API estimated it). */
export function Pager({ page, pageSize, total, estimate = false, onPage }: { page: number; pageSize: number; total: number; estimate?: boolean; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (total <= pageSize && page === 1) return null;
  const about = estimate ? 'about ' : '';
  return (
    <nav className="pager" aria-label="pages">
      <button type="button" className="secondary outline" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ← Previous
      </button>
      <span>
        {`Page ${page} of ${about}${pages} (${about}${total.toLocaleString()})`}
      </span>
      <button type="button" className="secondary outline" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next →
      </button>
    </nav>
  );
}
