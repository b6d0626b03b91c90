import { useState } from 'react';

/** Past this many characters a value is cut, with "show all" to see it whole. */
export const LONG_TEXT_CHARS = 2000;

/** JSON pretty-printed, or a string as it is: what a tool call's input or output shows. */
export function readable(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value ?? null, null, 2);
}

/** A preformatted value, cut at LONG_TEXT_CHARS until the reader asks for all of it. */
export function LongText({ value, label }: { value: string; label: string }) {
  const [whole, setWhole] = useState(false);
  const cut = !whole && value.length > LONG_TEXT_CHARS;
  return (
    <div className="long-text">
      <pre aria-label={label} tabIndex={0}>
        {cut ? `${value.slice(0, LONG_TEXT_CHARS)}…` : value}
      </pre>
      {cut && (
        <button type="button" className="secondary outline small" onClick={() => setWhole(true)}>
          Show all ({value.length.toLocaleString()} characters)
        </button>
      )}
    </div>
  );
}
