import type { ReactNode } from 'react';
import type { HighlightedText } from '@shared/contract/history';

/** Clamped, sorted, merged [start, end) ranges inside text. */
export function normalizeRanges(length: number, ranges: readonly { start: number; end: number }[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const sorted = ranges
    .map((r) => [Math.max(0, Math.min(length, r.start)), Math.max(0, Math.min(length, r.end))] as [number, number])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/** Text with its matched terms in <mark> elements. Plain text nodes only: nothing in it is ever parsed as HTML. */
export function Highlight({ value, className }: { value: HighlightedText; className?: string }) {
  const { text } = value;
  const parts: ReactNode[] = [];
  let at = 0;
  for (const [s, e] of normalizeRanges(text.length, value.highlights)) {
    if (s > at) parts.push(text.slice(at, s));
    parts.push(<mark key={s}>{text.slice(s, e)}</mark>);
    at = e;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <span className={className}>{parts}</span>;
}
