import { type ReactNode, useEffect, useId, useRef, useState } from 'react';

interface ConfirmButtonProps {
  /** The button's text ("Delete"), and its accessible name unless `label` says more. */
  children: ReactNode;
  label?: string;
  className?: string;
  /** The dialog's heading: the question ("Delete the webhook?"). */
  title: string;
  /** What follows if the person goes on. */
  message: ReactNode;
  /** The dialog's action button ("Delete webhook"). */
  confirmLabel: string;
  /** Text the person must type before the action is offered (a workspace's name, for deleting it with its agents). */
  typed?: string;
  /** The button that closes the dialog and does nothing ("Cancel"). */
  dismissLabel?: string;
  busy?: boolean;
  /** Whether the action destroys or stops something (the default): its button is then red. */
  destructive?: boolean;
  onConfirm: () => void;
}

/**
 * A button that asks first, in a modal `<dialog>`: the browser moves focus into it (Cancel, or the
 * text to type, whichever comes first), keeps it there,
 * closes it on Escape and gives focus back to the button; screen readers announce its heading and message.
 */
export function ConfirmButton({ children, label, className = 'secondary outline', title, message, confirmLabel, typed, dismissLabel = 'Cancel', busy, destructive = true, onConfirm }: ConfirmButtonProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  // The dialog's content exists only while it is open: closed, it adds no text to the page.
  const [open, setOpen] = useState(false);
  const [typedText, setTypedText] = useState('');
  const id = useId();
  const close = () => dialog.current?.close();
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
  }, [open]);
  const ready = typed === undefined || typedText === typed;
  return (
    <>
      <button
        type="button"
        className={className}
        aria-label={label}
        aria-haspopup="dialog"
        aria-busy={busy}
        onClick={() => {
          setTypedText('');
          setOpen(true);
        }}
      >
        {children}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} aria-describedby={`${id}-message`} className="confirm-dialog" onClose={() => setOpen(false)}>
        {open && (
          <article>
            <h2 id={`${id}-title`}>{title}</h2>
            <div id={`${id}-message`}>{message}</div>
            <form
              method="dialog"
              onSubmit={(event) => {
                event.preventDefault();
                if (!ready) return;
                close();
                onConfirm();
              }}
            >
              {typed !== undefined && (
                <label>
                  Type <strong className="mono">{typed}</strong> to confirm
                  <input value={typedText} onChange={(event) => setTypedText(event.target.value)} autoComplete="off" spellCheck={false} />
                </label>
            )}
            <footer className="row-actions">
              <button type="button" className="secondary" onClick={close}>
                {dismissLabel}
              </button>
              <button type="submit" className={destructive ? 'danger' : undefined} disabled={!ready}>
                {confirmLabel}
              </button>
            </footer>
          </form>
        </article>
        )}
      </dialog>
    </>
  );
}
