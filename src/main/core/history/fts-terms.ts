import { prepared, type Db } from '../store/database';

/**
 * The terms of an FTS5 index that start with a prefix, read from its segments: the index's own b-tree
 * (`<table>_idx`: the first term of each leaf page) names the few leaf pages that can hold them, and each leaf
 * page lists its terms in its footer. A prefix query that no prefix index answers makes FTS5 merge the lists
 * of every term the prefix starts, in full, before the first row (tens of ms for a common word over a large
 * index); the same terms OR'ed together are read lazily, newest first, as far as the search needs.
 *
 * The layout read here is FTS5's on-disk format (fts5_index.c: "structure record", "segment leaves", "PAGE
 * FORMAT"), which SQLite keeps readable by every later version. Anything unexpected (an unknown structure
 * version, a missing or malformed page, more terms than `max`) answers null, and the caller queries the
 * prefix as FTS5 does.
 */
export function termsWithPrefix(db: Db, table: string, prefix: string, max: number): string[] | null {
  if (prefix.length === 0 || !/^[a-z0-9_]+$/.test(table)) return null;
  try {
    const structure = prepared(db, `SELECT block FROM ${table}_data WHERE rowid = 10`).get() as { block: Uint8Array } | undefined;
    if (!structure) return [];
    // The terms of a prefix are read again once the index has changed: every change of its segments (a write, a
    // merge, a deletion's tombstone) is a change of the structure record.
    const key = `${table}\u0000${max}\u0000${prefix}`;
    let seen = known.get(db);
    if (!seen || !Buffer.from(structure.block).equals(seen.structure)) {
      // Versions 4 and 5 (5: written with secure-delete) share the layout read here.
      const version = prepared(db, `SELECT v FROM ${table}_config WHERE k = 'version'`).pluck().get();
      known.set(db, (seen = { structure: Buffer.from(structure.block), readable: version === 4 || version === 5, terms: new Map() }));
    }
    if (!seen.readable) return null;
    if (seen.terms.has(key)) return seen.terms.get(key)!;
    const terms = readTerms(db, table, prefix, max, structure.block);
    if (seen.terms.size >= MAX_KNOWN) seen.terms.clear();
    seen.terms.set(key, terms);
    return terms;
  } catch {
    return null;
  }
}

/** Prefixes whose terms are kept per connection (for the index as it was when they were read). */
const MAX_KNOWN = 256;
const known = new WeakMap<Db, { structure: Buffer; readable: boolean; terms: Map<string, string[] | null> }>();

function readTerms(db: Db, table: string, prefix: string, max: number, structure: Uint8Array): string[] | null {
  const segments = segmentsOf(structure);
  if (!segments) return null;
  // Terms of the main index start with '0' (prefix indexes with '1', '2'…).
  const key = Buffer.from(`0${prefix}`, 'utf8');
  const end = Buffer.from(key);
  end[end.length - 1]! += 1;
  const before = prepared(db, `SELECT pgno FROM ${table}_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1`);
  const within = prepared(db, `SELECT pgno FROM ${table}_idx WHERE segid = ? AND term > ? AND term < ? ORDER BY term`);
  const page = prepared(db, `SELECT block FROM ${table}_data WHERE rowid = ?`);
  const found = new Set<string>();
  for (const s of segments) {
    if (s.first === 0) continue; // emptied by a merge
    // The last page whose first term sorts at or before the prefix, then every page whose first term starts with
    // it (a merge trims a segment's first pages and rewrites its new first page: rows of trimmed pages remain).
    const first = before.get(s.id, key) as { pgno: number } | undefined;
    const pages = [Math.max(s.first, first ? first.pgno >> 1 : 0), ...(within.all(s.id, key, end) as Array<{ pgno: number }>).map((r) => r.pgno >> 1)];
    let last = 0;
    for (const pgno of pages) {
      if (pgno > s.last) break;
      if (pgno <= last) continue;
      last = pgno;
      const row = page.get(BigInt(s.id) * 2n ** 37n + BigInt(pgno)) as { block: Uint8Array } | undefined;
      if (!row) return null;
      const terms = termsOnPage(row.block);
      if (!terms) return null;
      for (const t of terms) {
        if (t.length >= key.length && t.subarray(0, key.length).equals(key)) found.add(t.subarray(1).toString('utf8'));
      }
      if (found.size > max) return null;
    }
  }
  return [...found].sort();
}

interface Segment {
  id: number;
  first: number;
  last: number;
}

/** Reads SQLite's varints (big-endian, 7 bits a byte, the ninth byte whole) as FTS5 writes them, from `at` on. */
class Varints {
  constructor(
    private readonly b: Uint8Array,
    public at: number,
  ) {}

  next(): number {
    let v = 0;
    for (let i = 0; i < 9; i++) {
      const c = this.b[this.at++];
      if (c === undefined) throw new RangeError('varint past the end');
      if (i === 8) return v * 256 + c;
      v = v * 128 + (c & 0x7f);
      if (!(c & 0x80)) return v;
    }
    return v;
  }
}

/** The segments of the structure record (rowid 10 of <table>_data); null if its version is unknown. */
function segmentsOf(b: Uint8Array): Segment[] | null {
  // Version 2 (contentless_delete tables) starts with 0xff000001 after the cookie and adds five fields per segment.
  const v2 = b[4] === 0xff && b[5] === 0x00 && b[6] === 0x00 && b[7] === 0x01;
  if (!v2 && b[4] === 0xff) return null;
  const r = new Varints(b, v2 ? 8 : 4);
  const levels = r.next();
  r.next(); // segments
  r.next(); // write counter
  const out: Segment[] = [];
  for (let l = 0; l < levels; l++) {
    r.next(); // segments being merged
    const n = r.next();
    for (let k = 0; k < n; k++) {
      const segment = { id: r.next(), first: r.next(), last: r.next() };
      if (v2) for (let f = 0; f < 5; f++) r.next();
      out.push(segment);
    }
  }
  return r.at <= b.length ? out : null;
}

/**
 * The terms on one leaf page: its footer (from the offset in the header's second field) lists each term's offset,
 * delta-encoded; the page's first term is whole, each next one shares a prefix with the one before.
 */
function termsOnPage(b: Uint8Array): Buffer[] | null {
  if (b.length < 4) return null;
  const footer = (b[2]! << 8) | b[3]!;
  if (footer > b.length || footer < 4) return null;
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const out: Buffer[] = [];
  let prev: Buffer | null = null;
  let offset = 0;
  for (const offsets = new Varints(b, footer); offsets.at < b.length; ) {
    offset += offsets.next();
    if (offset >= footer) return null;
    const r = new Varints(b, offset);
    const shared = prev ? r.next() : 0;
    const n = r.next();
    if (r.at + n > footer || (prev && shared > prev.length)) return null;
    const term: Buffer = prev ? Buffer.concat([prev.subarray(0, shared), buf.subarray(r.at, r.at + n)]) : Buffer.from(buf.subarray(r.at, r.at + n));
    out.push(term);
    prev = term;
  }
  return out;
}
