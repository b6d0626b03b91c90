import { useState } from 'react';

/** Copies a secret shown once (an API key, a signing secret) to the clipboard. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="secondary outline"
      onClick={() => {
        void navigator.clipboard.writeText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        });
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A secret the API shows only in this answer. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <article className="secret-once" aria-label={label}>
      <p>
        <strong>{label}</strong> — shown only now; copy it and keep it safe.
      </p>
      <div className="secret-row">
        <code data-testid="secret-value">{value}</code>
        <CopyButton value={value} />
      </div>
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </article>
  );
}
