const UNITS = ['KB', 'MB', 'GB', 'TB'];

/**
 * A byte count as people read it, in 1024s: 512 → "512 B", 1536 → "1.5 KB", 10 MiB → "10 MB",
 * 150.4 MiB → "150 MB". One decimal below 100 of a unit, none where it would be ".0".
 */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const shown = v >= 100 ? v.toFixed(0) : v.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${UNITS[i]}`;
}
