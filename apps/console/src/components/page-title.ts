import { useEffect } from 'react';

/** The browser tab's title for the page shown: what it is first, then the product (each page its own `<title>`). */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Agent Automation`;
  }, [title]);
}
