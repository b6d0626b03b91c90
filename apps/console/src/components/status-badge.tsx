/** A run, deployment, webhook or delivery state as a coloured badge. */
export function StatusBadge({ status }: { status: string | null | undefined }) {
  const value = status ?? 'unknown';
  return <span className={`badge badge-${value.replace(/[^a-z_]/g, '')}`}>{value.replace(/_/g, ' ')}</span>;
}
