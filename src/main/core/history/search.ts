import { storedTitle } from '../../../shared/session-title';
import type { HighlightedText, HistoryEntryKind, SearchHit } from '../../../shared/contract/history';
import { storedText } from '../store/compression';
import { prepared, type Db } from '../store/database';
import { termsWithPrefix } from './fts-terms';
import type { EntryRow } from './history-index';
import { encodePath, facet, head, looksLikePath, PATH_DEPTH, pathParts } from './entry-drafts';
import { searchText } from './search-texts';

/** Characters FTS5's unicode61 tokenizer keeps in tokens (letters, numbers, private use); the rest separate. */
const SEPARATORS = /[^\p{L}\p{N}\p{Co}]+/u;
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;
// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
const MAX_TERMS = 16;
const NONE: never[] = [];
const MAX_TOKEN = 64;
/** Tokens the tokenizer folds as toLowerCase does: ASCII, and the private-use characters of path tokens. */
// eslint-disable-next-line no-control-regex
const FOLDS_AS_LOWER_CASE = /^[\u0000-\u007f\uE000-\uF8FF]*$/;

/** One term of a query: consecutive tokens, the last one matched as a prefix unless `exact`. */
export interface Phrase {
  tokens: string[];
  prefix: boolean;
  /** A path or file name: searched as one path token (see model.ts), highlighted where this text occurs. */
  path?: string;
}

/** Case and diacritics folded the way `unicode61 remove_diacritics 2` folds them (close enough to highlight). */
export const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();

/**
 * What the user typed, as phrases: every word becomes a phrase of its tokens (so `login.ts` or
 * `refresh_token` match as written) matched as a prefix (`auth fi` finds "authentication fixed");
 * "double-quoted text" is an exact phrase. Single-letter words match whole tokens only (a one-letter prefix
 * would scan the whole vocabulary).
 */
export function parseQuery(input: string): Phrase[] {
  const out: Phrase[] = [];
  const text = input.normalize('NFC').slice(0, 1000);
  // "closed phrase" | "phrase still being typed | word
  const re = /"([^"]*)(")?|([^\s"]+)/g;
  for (const m of text.matchAll(re)) {
    if (out.length >= MAX_TERMS) break;
    const exact = m[2] !== undefined;
    if (m[3] !== undefined && looksLikePath(m[3])) {
      const parts = pathParts(m[3]).slice(-PATH_DEPTH);
      out.push({ tokens: [encodePath(parts.join('/'))], prefix: true, path: parts.join('/').toLowerCase() });
      continue;
    }
    const tokens = (m[1] ?? m[3] ?? '')
      .split(SEPARATORS)
      .filter((t) => t.length > 0)
      .map((t) => t.slice(0, MAX_TOKEN));
    if (tokens.length === 0) continue;
    out.push({ tokens, prefix: !exact && tokens[tokens.length - 1]!.length >= 2 });
  }
  return out;
}

/**
 * The FTS5 query for what the user typed; it can never be a syntax error, since every token is inside a
 * quoted string (`auth fi` → `"auth"* AND "fi"*`). Null: nothing to search for.
 */
export function toFtsQuery(
  input: string | Phrase[],
  exactPrefixes: boolean | ReadonlySet<string> = false,
  termsStarting: (prefix: string) => string[] | null = () => null,
): string | null {
  const phrases = typeof input === 'string' ? parseQuery(input) : input;
  if (phrases.length === 0) return null;
  return phrases
    .map((p) => {
      // A prefix longer than the longest prefix index would merge the lists of every term it starts (slow for
      // common words): look up its longest indexed prefix, and check the hits for the whole prefix.
      const tokens = p.prefix && !p.path && !asTyped(p, exactPrefixes) ? [...p.tokens.slice(0, -1), truncated(p.tokens.at(-1)!)] : p.tokens;
      if (!p.prefix) return quoted(tokens.join(' '));
      // A prefix no prefix index holds, as the terms it starts (read lazily, see fts-terms.ts), when they are few.
      const last = tokens.at(-1)!;
      const terms = PREFIX_INDEXES.includes(last.length) || !FOLDS_AS_LOWER_CASE.test(last) ? null : termsStarting(last.toLowerCase());
      if (!terms) return `${quoted(tokens.join(' '))}*`;
      const head = tokens.slice(0, -1);
      // No term starts with it: the phrase as one whole token, which matches nothing either.
      const each = (terms.length ? terms : [last.toLowerCase()]).map((t) => quoted([...head, t].join(' ')));
      return each.length === 1 ? each[0]! : `(${each.join(' OR ')})`;
    })
    .join(' AND ');
}

/**
 * The prefix indexes of history_fts (prefix = '2 4', migrations/0013). A plain word is looked up by the
 * longest indexed prefix it has ("refresh" by "refr", "the" by "th"): one stored list, read newest first,
 * while the word itself may start hundreds of terms whose lists FTS5 would merge in full. Identifiers
 * (camelCase, CAPS, digits) start few terms, so their own prefix is cheap. The hits are checked for the whole
 * word, and when they do not fill the page the search runs again with the exact prefixes.
 */
const PREFIX_INDEXES = [4, 2];
/** Terms a prefix may start to be looked up as those terms (OR'ed); more, and FTS5 merges their lists. */
const MAX_TERMS_OF_PREFIX = 128;
/** A long word starting at most this many terms is looked up as those terms from the start (see searchHistory). */
const FEW_TERMS = 8;
const PLAIN_WORD = /^\p{Lu}?\p{Ll}{2,13}$/u;
const truncated = (token: string): string => {
  if (!PLAIN_WORD.test(token)) return token;
  const chars = [...token];
  const n = PREFIX_INDEXES.find((k) => k <= chars.length) ?? chars.length;
  return chars.slice(0, n).join('');
};
const needsCheck = (p: Phrase): boolean => p.prefix && !p.path && truncated(p.tokens.at(-1)!) !== p.tokens.at(-1);
/** Whether a phrase's last word is looked up as typed: all of them, or those named. */
const asTyped = (p: Phrase, exact: boolean | ReadonlySet<string>): boolean => (typeof exact === 'boolean' ? exact : exact.has(p.tokens.at(-1)!));
const quoted = (s: string): string => `"${s.replace(/"/g, '""')}"`;

interface Token {
  start: number;
  end: number;
  folded: string;
}

function tokenize(text: string, limit = 200_000): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  const s = text.length > limit ? text.slice(0, limit) : text;
  for (let m = TOKEN.exec(s); m; m = TOKEN.exec(s)) {
    const t = m[0];
    out.push({ start: m.index, end: m.index + t.length, folded: ASCII.test(t) ? t.toLowerCase() : fold(t) });
  }
  return out;
}

type Match = { start: number; end: number; phrase: number };

/** Where the phrases occur in the text, by tokenizing all of it (any script, diacritics folded). */
function matchesSlow(text: string, phrases: Phrase[]): Match[] {
  const tokens = tokenize(text);
  const folded = phrases.map((p) => p.tokens.map(fold));
  const out: Match[] = [];
  for (let i = 0; i < tokens.length; i++) {
    for (let p = 0; p < folded.length; p++) {
      const want = folded[p]!;
      if (want.length === 0) continue;
      let ok = i + want.length <= tokens.length;
      for (let k = 0; ok && k < want.length; k++) {
        const got = tokens[i + k]!.folded;
        const last = k === want.length - 1;
        ok = last && phrases[p]!.prefix ? got.startsWith(want[k]!) : got === want[k];
      }
      if (ok) {
        out.push({ start: tokens[i]!.start, end: tokens[i + want.length - 1]!.end, phrase: p });
        break;
      }
    }
  }
  return out;
}

const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/** Whether the character at i is a token character (cheap for ASCII). */
function tokenCharAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
  if (c >= 0xdc00 && c <= 0xdfff && i > 0) return TOKEN_CHAR.test(String.fromCodePoint(s.codePointAt(i - 1)!));
  return TOKEN_CHAR.test(String.fromCodePoint(s.codePointAt(i)!));
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const firstTokenRe = new WeakMap<Phrase, RegExp>();

/**
 * The same, fast: finds each phrase's first token with a case-insensitive search and checks the token
 * boundaries there. Only for ASCII query tokens (no folding needed beyond case).
 */
function matchesFast(text: string, phrases: Phrase[], limit = 16): Match[] {
  let out: Match[] = [];
  const n = text.length;
  phrases.forEach((p, index) => {
    if (p.tokens.length === 0) return;
    let want = lowerTokens.get(p);
    if (!want) lowerTokens.set(p, (want = p.tokens.map((t) => t.toLowerCase())));
    const mine: Match[] = [];
    let re = firstTokenRe.get(p);
    if (!re) firstTokenRe.set(p, (re = new RegExp(escapeRe(want[0]!), 'gi')));
    re.lastIndex = 0;
    let found = 0;
    // (test, not exec: no match array per occurrence; an ASCII pattern matches as many characters as it has)
    for (; found < limit && re.test(text); ) {
      const pos = re.lastIndex - want[0]!.length;
      re.lastIndex = pos + 1;
      if (pos > 0 && tokenCharAt(text, pos - 1)) continue;
      let at = pos;
      let ok = true;
      for (let k = 0; ok && k < want.length; k++) {
        if (k > 0) while (at < n && !tokenCharAt(text, at)) at++;
        const w = want[k]!;
        if (!startsWithLower(text, at, w)) {
          ok = false;
          break;
        }
        let end = at + w.length;
        const whole = end >= n || !tokenCharAt(text, end);
        if (!whole && !(k === want.length - 1 && p.prefix)) ok = false;
        while (end < n && tokenCharAt(text, end)) end++;
        at = end;
      }
      if (ok) {
        mine.push({ start: pos, end: at, phrase: index });
        found++;
      }
    }
    out = out.length ? byStart(out, mine) : mine;
  });
  return out;
}

const lowerTokens = new WeakMap<Phrase, string[]>();

/** Whether the text at `at`, lower-cased, starts with `w` (lower-case ASCII); as `slice().toLowerCase()` compares, without the copies. */
function startsWithLower(text: string, at: number, w: string): boolean {
  if (at + w.length > text.length) return text.slice(at, at + w.length).toLowerCase() === w;
  for (let i = 0; i < w.length; i++) {
    let c = text.charCodeAt(at + i);
    // A character beyond ASCII may lower-case to ASCII (the Kelvin sign to k) or to two characters: compared as before.
    if (c >= 128) return text.slice(at, at + w.length).toLowerCase() === w;
    if (c >= 65 && c <= 90) c += 32;
    if (c !== w.charCodeAt(i)) return false;
  }
  return true;
}

/** Two lists of matches, each in text order, as one in text order (at the same start, the first list's first, as a stable sort puts them). */
function byStart(a: Match[], b: Match[]): Match[] {
  if (b.length === 0) return a;
  const out: Match[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(b[j]!.start < a[i]!.start ? b[j++]! : a[i++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Occurrences of typed paths (case-insensitive, as written). */
function pathMatches(text: string, phrases: Phrase[], limit = 64): Match[] {
  const out: Match[] = [];
  let lower: string | null = null;
  phrases.forEach((p, index) => {
    if (!p.path) return;
    lower ??= text.toLowerCase();
    if (lower.length !== text.length) return;
    for (let pos = lower.indexOf(p.path), n = 0; pos >= 0 && n < limit; pos = lower.indexOf(p.path, pos + 1), n++) {
      out.push({ start: pos, end: pos + p.path.length, phrase: index });
    }
  });
  return out;
}

function matches(text: string, phrases: Phrase[]): Match[] {
  const words = phrases.map((p) => (p.path ? { tokens: [], prefix: false } : p));
  let found: Match[] | null = words.some((p) => p.tokens.length > 0) ? null : [];
  if (!found && words.every((p) => p.tokens.every((t) => ASCII.test(t)))) {
    const fast = matchesFast(text, words);
    if (fast.length > 0 || ASCII.test(text)) found = fast;
  }
  found ??= matchesSlow(text, words);
  const paths = pathMatches(text, phrases);
  return paths.length ? [...found, ...paths].sort((a, b) => a.start - b.start) : found;
}

const SNIPPET = 180;
/** Every whitespace character as a space (most snippets have none but spaces: they are returned as they are). */
const oneLine = (s: string): string => (/[^\S ]/.test(s) ? s.replace(/\s/g, ' ') : s);

/**
 * A window of the text around the densest cluster of matches, with the matches marked: plain text plus
 * UTF-16 ranges (never HTML). Null when no phrase occurs in the text.
 */
export function highlight(text: string, phrases: Phrase[], width = SNIPPET): HighlightedText | null {
  const found = matches(text, phrases);
  return found.length === 0 ? null : snippetAround(text, found, phrases.length, width);
}

function snippetAround(text: string, found: Match[], phraseCount: number, width = SNIPPET): HighlightedText {
  // The window starting shortly before a match that covers the most distinct phrases.
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < found.length; i++) {
    // The phrases seen, as bits (a query has at most MAX_TERMS phrases).
    let seen = 0;
    for (let j = i; j < found.length && found[j]!.end - found[i]!.start <= width; j++) seen |= 1 << found[j]!.phrase;
    let distinct = 0;
    for (let bits = seen; bits; bits &= bits - 1) distinct++;
    if (distinct > bestScore) {
      bestScore = distinct;
      best = i;
    }
    if (bestScore === phraseCount) break;
  }
  let start = Math.max(0, found[best]!.start - Math.floor(width / 4));
  let end = Math.min(text.length, start + width);
  if (end - start < width) start = Math.max(0, end - width);
  // Whole words at the edges.
  if (start > 0) {
    const ws = text.slice(start, start + 20).search(/\s/);
    if (ws >= 0 && start + ws < found[best]!.start) start += ws + 1;
  }
  if (end < text.length) {
    const ws = text.slice(Math.max(start, end - 20), end).search(/\s\S*$/);
    if (ws >= 0) end = Math.max(start, end - 20) + ws;
  }
  const lead = start > 0 ? '…' : '';
  const snippet = lead + oneLine(text.slice(start, end)) + (end < text.length ? '…' : '');
  const highlights = found
    .filter((m) => m.start >= start && m.end <= end)
    .map((m) => ({ start: m.start - start + lead.length, end: m.end - start + lead.length }));
  return { text: snippet, highlights };
}

export interface SearchOptions {
  query: string;
  agentIds?: string[] | undefined;
  projects?: string[] | undefined;
  from?: number | undefined;
  to?: number | undefined;
  failedOnly?: boolean | undefined;
  sessionId?: string | undefined;
  kinds?: Array<HistoryEntryKind | 'title' | 'changes'> | undefined;
  /**
   * Look long prefixes up as typed, all of them or those whose last word is named (the fallbacks when looking them
   * up by their first characters found mostly look-alikes).
   */
  exactPrefixes?: boolean | ReadonlySet<string>;
  limit: number;
  perSession: number;
  now?: number;
  /** How many of the most recent matches are looked at, at most (see searchHistory). */
  candidates?: number;
}

type SessionRow = { agent_id: string; cwd: string; given: string | null; prompt: string | null };

/** A match of the index (its entry is read once it is ranked). */
interface Candidate {
  id: number;
  session_id: string;
}

const DAY = 86_400_000;
export const DEFAULT_CANDIDATES = 300;

/** A filter matching at least this share of all entries is checked row by row rather than as a facet. */
const BROAD = 0.1;

/**
 * Entries per agent and per project (to choose how to filter). Computed once, then refreshed in the
 * background when older than a few minutes: a search never waits for it twice.
 */
type Shares = { at: number; total: number; agents: Map<string, number>; projects: Map<string, number>; refreshing?: boolean };
const shareCache = new WeakMap<Db, Shares>();
function shares(db: Db): Shares {
  const hit = shareCache.get(db);
  if (!hit) return computeShares(db);
  if (Date.now() - hit.at > 300_000 && !hit.refreshing) {
    hit.refreshing = true;
    setImmediate(() => {
      try {
        if (db.open) computeShares(db);
      } catch {
        hit.refreshing = false;
      }
    });
  }
  return hit;
}
function computeShares(db: Db): Shares {
  const rows = cached(
    db,
    'SELECT s.agent_id AS agent, s.cwd, sum(h.entry_count) AS n FROM history_sessions h JOIN sessions s ON s.id = h.session_id GROUP BY s.agent_id, s.cwd',
  ).all() as Array<{ agent: string; cwd: string; n: number }>;
  const value: Shares = { at: Date.now(), total: 0, agents: new Map<string, number>(), projects: new Map<string, number>() };
  for (const r of rows) {
    value.total += r.n;
    value.agents.set(r.agent, (value.agents.get(r.agent) ?? 0) + r.n);
    value.projects.set(r.cwd, (value.projects.get(r.cwd) ?? 0) + r.n);
  }
  shareCache.set(db, value);
  return value;
}

const cached = prepared;

/**
 * Relevance of one entry, BM25-like, from the matches found for its snippet: each phrase's occurrences
 * (those in the named paths count twice) saturate (k1 = 1.2) and weigh less in long texts (b = 0.75, against
 * an average text of AVERAGE_TEXT characters). No inverse document frequency: every candidate contains every
 * phrase, and counting a common word's matches over the whole index (what FTS5's bm25() does first, for
 * every query) costs more than the rest of the search.
 */
const AVERAGE_TEXT = 2_000;
function relevance(inBody: Match[], inPaths: Match[], phraseCount: number, length: number): number {
  const tf = new Array<number>(phraseCount).fill(0);
  for (const m of inBody) tf[m.phrase]! += 1;
  for (const m of inPaths) tf[m.phrase]! += 2;
  const norm = 1.2 * (0.25 + (0.75 * length) / AVERAGE_TEXT);
  return tf.reduce((sum, f) => sum + (f * 2.2) / (f + norm), 0);
}

/** Relevance with a recency boost: scaled by 1 for today's entries down towards 0.5 for old ones (half-life 30 days). */
const ranked = (relevance: number, ts: number, now: number): number => relevance * (0.5 + 0.5 * 2 ** (-Math.max(0, now - ts) / (30 * DAY)));

/** How many candidates are ranked per hit asked for (the newest ones, at most perSession per session). */
const RANKED_PER_HIT = 2;
/** Matches of the first query of the index looked at at most (those the filters let through, with their sessions). */
const MAX_ROWS = 5_000;
/**
 * Candidates rejected for lacking a long prefix's whole word (it was looked up by its start) after which, once they
 * outnumber the hits, the search runs again with the prefix as typed: the word is rarer than its look-alikes, so
 * reading them would cost more than FTS5 merging the few terms that start with the whole word.
 */
const LOOK_ALIKES_BEFORE_EXACT = 12;
/** Consecutive rows of full sessions after which the rest of the matches are skipped by id (see `rest`). */
const SKIPPED_BEFORE_SKIPPING_BY_ID = 48;
/** Ids of one full session's older entries read to skip its matches by (the rest are looked up one by one). */
const MAX_SKIP_SET = 50_000;
/** Matches looked up one by one at most, after the first query (bounds a search through dense, filtered matches). */
const MAX_LOOKED_UP = 20_000;
/** Matches read from the index at most after the first query, skipped ones included (a few full sessions' dense matches). */
const MAX_STREAMED = 500_000;

/**
 * Full-text search. The FTS index yields matches newest first (after filters); the newest of them, up to
 * RANKED_PER_HIT per hit asked for and perSession per session, are read, ranked by relevance and recency,
 * and the best `limit` returned. The matches of a session that has its perSession hits are skipped over
 * (neither read nor counted). Reading stops after `candidates` matches were read,
 * which bounds the cost of a long prefix whose matches are mostly look-alikes. `truncated`: some matches
 * were not ranked.
 */
export function searchHistory(db: Db, options: SearchOptions): { hits: SearchHit[]; truncated: boolean } {
  const phrases = parseQuery(options.query);
  const starting = new Map<string, string[] | null>();
  const termsStarting = (prefix: string): string[] | null => {
    if (!starting.has(prefix)) starting.set(prefix, termsWithPrefix(db, 'history_fts', prefix, MAX_TERMS_OF_PREFIX));
    return starting.get(prefix)!;
  };
  // A long word that starts few terms is looked up as typed, as those terms: no look-alikes to read and reject.
  const given = options.exactPrefixes ?? false;
  const few =
    given === true ? [] : phrases.filter((p) => needsCheck(p) && !asTyped(p, given) && ASCII.test(p.tokens.at(-1)!) && (termsStarting(p.tokens.at(-1)!.toLowerCase())?.length ?? Infinity) <= FEW_TERMS);
  const o = few.length ? { ...options, exactPrefixes: new Set([...(typeof given === 'object' ? given : []), ...few.map((p) => p.tokens.at(-1)!)]) } : options;
  const match = toFtsQuery(phrases, o.exactPrefixes, termsStarting);
  if (!match) return { hits: [], truncated: false };
  const now = o.now ?? Date.now();
  const cap = o.candidates ?? DEFAULT_CANDIDATES;
  // Filters: a selective one (a session, failed turns, a small project or agent) is a facet token, part of
  // the FTS match (an index intersection); a broad one is cheaper checked row by row on the newest matches
  // than intersected with its facet token's long list.
  const facets: string[] = [];
  // Conditions on an entry are part of the index query; those on its session are checked once per session.
  const where: string[] = [];
  const args: Record<string, unknown> = {};
  const sessionWhere: string[] = ['s.deleted_at IS NULL'];
  const sessionArgs: Record<string, unknown> = {};
  const anyOf = (tokens: string[]): void => void (tokens.length && facets.push(`(${tokens.map(quoted).join(' OR ')})`));
  const share = shares(db);
  const filter = (values: readonly string[] | undefined, column: string, name: string, token: (v: string) => string, counts: Map<string, number>): void => {
    if (!values?.length) return;
    const part = values.reduce((n, v) => n + (counts.get(v) ?? 0), 0) / Math.max(1, share.total);
    if (part < BROAD) return anyOf(values.map(token));
    sessionWhere.push(`${column} IN (${values.map((_, i) => `@${name}${i}`).join(', ')})`);
    values.forEach((v, i) => (sessionArgs[`${name}${i}`] = v));
  };
  filter(o.agentIds, 's.agent_id', 'agent', facet.agent, share.agents);
  filter(o.projects, 's.cwd', 'project', facet.project, share.projects);
  if (o.sessionId !== undefined) anyOf([facet.session(o.sessionId)]);
  if (o.failedOnly) anyOf([facet.failed]);
  const fts = [match, ...facets].join(' AND ');
  if (o.kinds?.length) {
    where.push(`e.kind IN (${o.kinds.map((_, i) => `@kind${i}`).join(', ')})`);
    o.kinds.forEach((v, i) => (args[`kind${i}`] = v));
  }
  if (o.from !== undefined) {
    where.push('e.ts >= @from');
    args.from = o.from;
  }
  if (o.to !== undefined) {
    where.push('e.ts < @to');
    args.to = o.to;
  }
  const and = where.map((w) => ` AND ${w}`).join('');
  // CROSS JOIN keeps the FTS table as the outer loop, so rows come in rowid order from the index, read as
  // they are needed (most searches need only the first hundred).
  const page = cached(
    db,
    `SELECT e.id, e.session_id FROM history_fts CROSS JOIN history_entries e ON e.id = history_fts.rowid
       WHERE history_fts MATCH @match${and} ORDER BY history_fts.rowid DESC`,
  );
  /**
   * Dense matches (a common word): the rest of the matches as the index alone yields them, each looked up by
   * itself unless it belongs to a session that has its perSession hits. Asking the index again below a run of
   * such rows, or for the next session's matches alone, would cost a walk of the query's long lists from their
   * end (FTS5 finds a rowid bound so), a few hundred µs each time; the rows of a full session are skipped here
   * for well under a µs each instead, by their ids (read once per full session from its index).
   */
  const rest = cached(db, 'SELECT rowid AS id FROM history_fts WHERE history_fts MATCH @match AND rowid < @before ORDER BY rowid DESC');
  const one = cached(db, `SELECT e.id, e.session_id FROM history_entries e WHERE e.id = @id${and}`);
  // A session's row is read once, with what its hits show of it.
  const sessionRow = cached(
    db,
    `SELECT s.agent_id, s.cwd, coalesce(nullif(h.custom_title, ''), nullif(s.title, ''), nullif(h.info_title, '')) AS given, h.prompt_title AS prompt
       FROM sessions s LEFT JOIN history_sessions h ON h.session_id = s.id WHERE s.id = @session AND ${sessionWhere.join(' AND ')}`,
  );
  const allowed = new Map<string, SessionRow | null>();
  const inSession = (id: string): boolean => {
    let row = allowed.get(id);
    if (row === undefined) allowed.set(id, (row = (sessionRow.get({ ...sessionArgs, session: id }) as SessionRow | undefined) ?? null));
    return row !== null;
  };
  const sessionRows = cached(db, `SELECT id FROM history_entries WHERE session_id = ? AND id < ? LIMIT ${MAX_SKIP_SET}`);
  const perSession = new Map<string, number>();
  let considered = 0;
  /** Every match was looked at. */
  let exhausted = false;
  const fullSession = (id: string): boolean => (perSession.get(id) ?? 0) >= o.perSession;
  function* candidates(): Generator<Candidate> {
    let before = Number.MAX_SAFE_INTEGER;
    let rows = 0;
    let skipped = 0;
    let dense = false;
    let ended = true;
    for (const r of page.iterate({ ...args, match: fts }) as IterableIterator<Candidate>) {
      if (!inSession(r.session_id)) {
        before = r.id;
        continue;
      }
      if (++rows > MAX_ROWS) {
        ended = false;
        break;
      }
      before = r.id;
      if (fullSession(r.session_id)) {
        if (++skipped > SKIPPED_BEFORE_SKIPPING_BY_ID) {
          dense = true;
          break;
        }
        continue;
      }
      skipped = 0;
      yield r;
      if (considered >= cap) return;
    }
    if (!dense && ended) {
      exhausted = true;
      return;
    }
    const skip = new Set<number>();
    const loaded = new Set<string>();
    let streamed = 0;
    let looked = 0;
    for (const id of rest.pluck().iterate({ match: fts, before }) as IterableIterator<number>) {
      if (++streamed > MAX_STREAMED) return;
      if (skip.has(id)) continue;
      if (++looked > MAX_LOOKED_UP) return;
      const r = one.get({ ...args, id }) as Candidate | undefined;
      if (!r || !inSession(r.session_id)) continue;
      if (fullSession(r.session_id)) {
        if (!loaded.has(r.session_id)) {
          loaded.add(r.session_id);
          for (const older of sessionRows.pluck().all(r.session_id, id) as number[]) skip.add(older);
        }
        continue;
      }
      yield r;
      if (considered >= cap) return;
    }
    exhausted = true;
  }

  const check = phrases.filter((p) => needsCheck(p) && !asTyped(p, o.exactPrefixes ?? false));
  // A long prefix looked up by its start is mostly rejected on look-alikes: an entry whose stored values are
  // ASCII text without it (any case), once decompressed, is rejected before its JSON is parsed into a draft (a
  // non-ASCII value may hold it with diacritics).
  const wholePrefixes = check.filter((p) => ASCII.test(p.tokens.at(-1)!)).map((p) => ({ p, re: new RegExp(escapeRe(p.tokens.at(-1)!), 'i') }));
  const plainWithout = (v: string | Uint8Array | null, re: RegExp): boolean => v === null || (typeof v === 'string' && !re.test(v) && ASCII.test(v));
  const lacking = (row: EntryRow): Phrase[] => wholePrefixes.filter(({ re }) => plainWithout(row.text, re) && plainWithout(row.detail, re)).map(({ p }) => p);
  const entry = cached(db, 'SELECT * FROM history_entries WHERE id = ?');
  // The newest candidates, at most perSession of each session, are read and ranked: their text gives the
  // snippet and the relevance at once.
  const want = o.limit * RANKED_PER_HIT;
  const hits: Array<Omit<SearchHit, 'snippet' | 'session'> & { snippet: () => HighlightedText }> = [];
  /** Candidates rejected for lacking each long prefix's whole word. */
  const lookAlikes = new Map<Phrase, number>();
  let rejected = 0;
  /**
   * Counts a candidate rejected for lacking these words; true once most candidates were (then the words that were
   * lacking most often are looked up as typed: looking them up costs less than reading their look-alikes).
   */
  const mostlyLookAlikes = (lacks: Phrase[]): boolean => {
    for (const p of lacks) lookAlikes.set(p, (lookAlikes.get(p) ?? 0) + 1);
    return ++rejected >= LOOK_ALIKES_BEFORE_EXACT && rejected > hits.length;
  };
  let typeAsTyped = false;
  for (const r of candidates()) {
    const n = perSession.get(r.session_id) ?? 0;
    considered++;
    const stored = entry.get(r.id) as EntryRow;
    // A compressed value is read here once, for the look-alike check too (then before its JSON is parsed).
    const row = wholePrefixes.length ? { ...stored, text: storedText(stored.text, `history entry ${r.id}`), detail: storedText(stored.detail, `history entry ${r.id}`) } : stored;
    const lacks = wholePrefixes.length ? lacking(row) : NONE;
    if (lacks.length) {
      if ((typeAsTyped = mostlyLookAlikes(lacks))) break;
      continue;
    }
    const text = searchText(db, row);
    const { pathText } = text;
    const inBody = matches(text.body, phrases);
    const inPaths = pathText ? matches(pathText, phrases) : [];
    // A long prefix was looked up by its start: keep the hit only if the whole prefix is there.
    if (check.length) {
      const seen = new Set([...inBody, ...inPaths].map((m) => m.phrase));
      const missing = check.filter((p) => !seen.has(phrases.indexOf(p)));
      if (missing.length) {
        if ((typeAsTyped = mostlyLookAlikes(missing))) break;
        continue;
      }
    }
    perSession.set(r.session_id, n + 1);
    // The snippet is cut for the hits kept (below).
    const snippet = (): HighlightedText =>
      inBody.length
        ? snippetAround(text.body, inBody, phrases.length)
        : inPaths.length
          ? snippetAround(pathText, inPaths, phrases.length)
          : { text: oneLine(head(text.body, SNIPPET)), highlights: [] };
    hits.push({
      sessionId: r.session_id,
      entryId: r.id,
      seq: stored.seq,
      kind: stored.kind,
      ts: stored.ts,
      turn: stored.turn,
      failed: stored.failed === 1,
      snippet,
      toolTitle: text.toolTitle,
      score: ranked(relevance(inBody, inPaths, phrases.length, text.body.length), stored.ts, now),
    });
    if (hits.length >= want) break;
  }
  // Matches were left unranked (the newest `cap` at most are looked at).
  const truncated = !exhausted;
  // (The candidates' statements are done once the loop is left: the search again reuses them.)
  if (typeAsTyped) {
    // The words lacking most often (a common word beside a rare one stays looked up by its start: as typed, FTS5
    // would merge its long list in full).
    const most = Math.max(...lookAlikes.values());
    const typed = new Set(typeof o.exactPrefixes === 'object' ? o.exactPrefixes : []);
    for (const [p, n] of lookAlikes) if (n * 2 >= most) typed.add(p.tokens.at(-1)!);
    return searchHistory(db, { ...o, exactPrefixes: typed });
  }
  if (check.length && hits.length < o.limit && considered >= cap) return searchHistory(db, { ...o, exactPrefixes: true });
  hits.sort((x, y) => y.score - x.score);
  hits.length = Math.min(hits.length, o.limit);
  const sessions = new Map<string, SearchHit['session']>();
  const sessionOf = (id: string): SearchHit['session'] => {
    let session = sessions.get(id);
    if (!session) {
      const row = allowed.get(id)!;
      sessions.set(id, (session = { title: storedTitle({ custom: row.given, prompt: row.prompt }) ?? '', agentId: row.agent_id, cwd: row.cwd }));
    }
    return session;
  };
  const found = hits.map((h): SearchHit => ({ ...h, snippet: h.snippet(), session: sessionOf(h.sessionId) }));
  return { hits: found, truncated };
}
