import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { SHORTCUTS, type ShortcutAction, ShortcutReader, isTyping } from './keyboard-shortcuts';

/** The page's search field: the first search input in the content, its closed <details> opened. */
function focusSearch(): boolean {
  const field = document.querySelector<HTMLElement>('main input[type="search"], main [data-search]');
  if (!field) return false;
  const details = field.closest('details');
  if (details) details.open = true;
  field.focus();
  return true;
}

/** The keyboard shortcuts of every signed-in page, and `?`'s dialog that lists them. */
export function KeyboardShortcuts() {
  const navigate = useNavigate();
  const help = useRef<HTMLDialogElement>(null);
  // The list exists only while it is shown: closed, it adds no text to the page.
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (open && !help.current?.open) help.current?.showModal();
  }, [open]);
  useEffect(() => {
    const reader = new ShortcutReader();
    const perform = (action: ShortcutAction): boolean => {
      if ('go' in action) void navigate(action.go);
      else if ('focus' in action) return focusSearch();
      else setOpen(true);
      return true;
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || isTyping(event.target) || document.querySelector('dialog[open]')) return;
      const shortcut = reader.read(event.key, Date.now());
      if (shortcut && perform(shortcut.action)) event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [navigate]);
  return (
    <dialog ref={help} aria-labelledby="shortcuts-title" className="confirm-dialog" onClose={() => setOpen(false)}>
      {open && (
        <article>
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Keys</th>
                <th scope="col">What they do</th>
              </tr>
            </thead>
            <tbody>
              {SHORTCUTS.map((shortcut) => (
                <tr key={shortcut.keys.join(' ')}>
                  <td className="shortcut-keys">
                    {shortcut.keys.map((key, i) => (
                      <span key={i}>
                        {i > 0 && ' then '}
                        <kbd>{key}</kbd>
                      </span>
                    ))}
                  </td>
                  <td>{shortcut.does}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <form method="dialog" className="row-actions">
            <button type="submit" className="secondary">
              Close
            </button>
          </form>
        </article>
      )}
    </dialog>
  );
}
