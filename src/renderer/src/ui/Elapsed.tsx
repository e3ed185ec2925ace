import { useEffect, useState } from 'react';

/** "8 s", "2 min 05 s": how long something has taken so far. */
export function formatWait(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** The time now, new every second while `ticking` (a view that shows durations, while it is shown). */
export function useNow(ticking = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [ticking]);
  return now;
}

/** The time since `since`, counting up every second. */
export function Elapsed({ since }: { since: number }) {
  const now = useNow();
  return (
    <span className="elapsed" data-testid="elapsed">
      {formatWait(now - since)}
    </span>
  );
}
