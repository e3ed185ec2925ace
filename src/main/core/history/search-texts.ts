import type { Db } from '../store/database';
import { entryText, INDEX_CAPS } from './entry-drafts';
import { draftFromRow, type EntryRow } from './history-index';

/** What a search ranks and cuts its snippet from, for one stored entry. */
export interface SearchText {
  body: string;
  /** The paths the entry names, one a line (matched as a text of their own). */
  pathText: string;
  toolTitle: string | null;
}

interface Kept extends SearchText {
  kind: string;
  ref: string | null;
  text: EntryRow['text'];
  detail: EntryRow['detail'];
  size: number;
}

/** Kept texts at most, in characters (their bodies, paths and stored values together). */
const MAX_KEPT_CHARS = 4_000_000;
const kept = new WeakMap<Db, { texts: Map<number, Kept>; chars: number }>();

const same = (a: string | Uint8Array | null, b: string | Uint8Array | null): boolean =>
  a === b || (a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0);
const sizeOf = (v: string | Uint8Array | null): number => (v === null ? 0 : v.length);

/**
 * The searchable text of a stored entry: its values decompressed, its JSON parsed and its text made as the index
 * made it (most of what ranking a candidate costs). The texts of the most recently ranked entries are kept: a
 * search typed letter by letter, or refined, ranks mostly the same newest entries again. A kept text serves only
 * while the entry's stored values are those it was made from.
 */
export function searchText(db: Db, row: EntryRow): SearchText {
  let cache = kept.get(db);
  if (!cache) kept.set(db, (cache = { texts: new Map(), chars: 0 }));
  const hit = cache.texts.get(row.id);
  if (hit) {
    cache.texts.delete(row.id);
    if (hit.kind === row.kind && hit.ref === row.ref && same(hit.text, row.text) && same(hit.detail, row.detail)) {
      cache.texts.set(row.id, hit);
      return hit;
    }
    cache.chars -= hit.size;
  }
  const draft = draftFromRow(row);
  const text = entryText(draft, INDEX_CAPS);
  const pathText = text.paths.join('\n');
  const made: Kept = {
    body: text.body,
    pathText,
    toolTitle: draft.detail?.kind === 'entry' && draft.detail.entry.kind === 'tool_call' ? draft.detail.entry.title : null,
    kind: row.kind,
    ref: row.ref,
    text: row.text,
    detail: row.detail,
    size: text.body.length + pathText.length + sizeOf(row.text) + sizeOf(row.detail),
  };
  cache.texts.set(row.id, made);
  cache.chars += made.size;
  for (const [id, old] of cache.texts) {
    if (cache.chars <= MAX_KEPT_CHARS) break;
    cache.texts.delete(id);
    cache.chars -= old.size;
  }
  return made;
}
