import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

/** The reader is at the end of the page (within a line or two), so new events can follow on. */
const atEndOfPage = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
const toEnd = () => window.scrollTo({ top: document.documentElement.scrollHeight });

/**
 * Keeps the page at its end as `count` grows, when `active` and while the reader stays there; a reader
 * who scrolled up is left where they are, and told how many events came since (`unseen`).
 */
export function useFollowLatest(count: number, active: boolean) {
  const following = useRef(true);
  const counted = useRef(count);
  const [seen, setSeen] = useState(count);
  counted.current = count;
  useEffect(() => {
    const onScroll = () => {
      following.current = atEndOfPage();
      if (following.current) setSeen(counted.current);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  useLayoutEffect(() => {
    if (!active || following.current) {
      if (active) toEnd();
      setSeen(count);
    }
  }, [count, active]);
  const jump = useCallback(() => {
    following.current = true;
    toEnd();
    setSeen(counted.current);
  }, []);
  return { unseen: active ? Math.max(0, count - seen) : 0, jump };
}
