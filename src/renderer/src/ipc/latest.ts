import { useCallback, useRef } from 'react';

/**
 * For a view that reads the same thing again on every event: replies can come back out of order (a slow
 * read started before a change ends after the quick one started after it), and only the newest read's
 * reply may be shown. `begin()` returns a check to make before applying a reply.
 */
export function useLatestRead(): () => () => boolean {
  const issued = useRef(0);
  return useCallback(() => {
    const mine = ++issued.current;
    return () => mine === issued.current;
  }, []);
}
