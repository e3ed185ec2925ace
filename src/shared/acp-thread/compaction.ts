import type { Draft } from './draft';
import { appendPart, isContentBlock, partsFromContent } from './messages';
import type { CompactionEntry } from './types';

/**
 * Context compactions (`compaction_update`, `compaction_summary_chunk`): one entry per compaction id, at the
 * place its first update arrived; later updates patch it there. `summary` and `error` have patch semantics:
 * absent leaves them, null (or an empty summary) clears them, a value replaces them.
 */

/**
 * Only the entries this state holds are searched: a view holding the thread's tail that hears of a
 * compaction begun before it would show a second marker for it until it reloads (the stored thread, which
 * holds every entry, has one).
 */
function compactionIndex(d: Draft, compactionId: string): number | undefined {
  for (let i = d.length - 1; i >= d.first; i--) {
    const e = d.at(i);
    if (e?.kind === 'compaction' && e.compactionId === compactionId) return i;
  }
  return undefined;
}

function entryOf(d: Draft, compactionId: string): CompactionEntry {
  const i = compactionIndex(d, compactionId);
  if (i !== undefined) return d.mutable<CompactionEntry>(i);
  const index = d.push({ kind: 'compaction', id: d.nextEntryId(), compactionId, status: 'in_progress', summary: [], error: null });
  return d.mutable<CompactionEntry>(index);
}

export function applyCompactionUpdate(d: Draft, u: Record<string, unknown>): void {
  if (typeof u.compactionId !== 'string' || typeof u.status !== 'string') return;
  const entry = entryOf(d, u.compactionId);
  entry.status = u.status;
  if ('summary' in u) entry.summary = Array.isArray(u.summary) ? partsFromContent(u.summary.filter(isContentBlock)) : [];
  if ('error' in u) entry.error = typeof u.error === 'string' ? u.error : null;
}

export function applyCompactionSummaryChunk(d: Draft, u: Record<string, unknown>): void {
  if (typeof u.compactionId !== 'string' || !isContentBlock(u.content)) return;
  const entry = entryOf(d, u.compactionId);
  appendPart(entry.summary, u.content);
}
