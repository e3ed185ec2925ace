export const median = (xs: readonly number[]): number => percentile(xs, 50);

/** Nearest-rank percentile (p in 0..100); NaN for no samples. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export const round1 = (n: number): number => Math.round(n * 10) / 10;
