import { problemDetail } from '../api';

/** An error as the API described it (Problem Details `detail`). */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error-note" role="alert">
      {problemDetail(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-busy="true">Loading {what}…</p>;
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="empty">{children}</p>;
}
