import type { HighlightedText, HistoryEntryKind, SearchHit } from '../../shared/contract/history';
import type { Db } from '../store/database';

/** Characters FTS5's unicode61 tokenizer keeps in tokens (letters, numbers, private use); the rest separate. */
const SEPARATORS = /[^\p{L}\p{N}\p{Co}]+/u;
const MAX_TERMS = 16;
const MAX_TOKEN = 64;

const quote = (tokens: string[]): string => `"${tokens.join(' ').replace(/"/g, '""')}"`;

/**
 * Turns what the user typed into an FTS5 query that can never be a syntax error: every word becomes a
 * quoted phrase of its tokens (so `login.ts` or `refresh_token` match as written), each word matches as a
 * prefix (`auth fi` → `"auth"* AND "fi"*`), and "double-quoted text" is an exact phrase. Single-letter
 * words match whole tokens only (a one-letter prefix would scan the whole vocabulary). Null: nothing to search.
 */
export function toFtsQuery(input: string): string | null {
  const parts: string[] = [];
  const text = input.normalize('NFC').slice(0, 1000);
  // "closed phrase" | "phrase still being typed | word
  const re = /"([^"]*)(")?|([^\s"]+)/g;
  for (const m of text.matchAll(re)) {
    if (parts.length >= MAX_TERMS) break;
    const phrase = m[2] !== undefined;
    const tokens = (m[1] ?? m[3] ?? '')
      .split(SEPARATORS)
      .filter((t) => t.length > 0)
      .map((t) => t.slice(0, MAX_TOKEN));
    if (tokens.length === 0) continue;
    const last = tokens[tokens.length - 1]!;
    parts.push(phrase || last.length < 2 ? quote(tokens) : `${quote(tokens)}*`);
  }
  return parts.length ? parts.join(' AND ') : null;
}

/** snippet() output with \x01…\x02 around matches → plain text plus highlight ranges. */
export function parseSnippet(marked: string): HighlightedText {
  let text = '';
  const highlights: HighlightedText['highlights'] = [];
  let start = -1;
  let last = 0;
  for (let i = 0; i < marked.length; i++) {
    const c = marked.charCodeAt(i);
    if (c !== 1 && c !== 2) continue;
    text += marked.slice(last, i);
    last = i + 1;
    if (c === 1) start = text.length;
    else if (start >= 0) {
      if (text.length > start) highlights.push({ start, end: text.length });
      start = -1;
    }
  }
  text += marked.slice(last);
  return { text, highlights };
}

export interface SearchOptions {
  query: string;
  agentIds?: string[] | undefined;
  projects?: string[] | undefined;
  from?: number | undefined;
  to?: number | undefined;
  failedOnly?: boolean | undefined;
  sessionId?: string | undefined;
  kinds?: Array<HistoryEntryKind | 'title'> | undefined;
  limit: number;
  perSession: number;
  now?: number;
  /** How many of the most recent matches are ranked. */
  candidates?: number;
}

interface Candidate {
  id: number;
  session_id: string;
  seq: number;
  ts: number;
  turn: number;
  kind: HistoryEntryKind | 'title';
  failed: number;
  score: number;
}

const DAY = 86_400_000;
export const DEFAULT_CANDIDATES = 1000;

/**
 * Relevance with a recency boost: bm25 (body weighs 1, paths 2) scaled by 1 for today's entries down
 * towards 0.5 for old ones (half-life 30 days).
 */
const ranked = (bm25: number, ts: number, now: number): number => -bm25 * (0.5 + 0.5 * 2 ** (-Math.max(0, now - ts) / (30 * DAY)));

/**
 * Full-text search. The FTS index yields matches newest first; only the newest `candidates` matches (after
 * filters) are ranked, which bounds the cost of very common words on a large history.
 */
export function searchHistory(db: Db, o: SearchOptions): { hits: SearchHit[]; truncated: boolean } {
  const match = toFtsQuery(o.query);
  if (!match) return { hits: [], truncated: false };
  const now = o.now ?? Date.now();
  const cap = o.candidates ?? DEFAULT_CANDIDATES;
  const where: string[] = ['history_fts MATCH @match', 's.deleted_at IS NULL'];
  const args: Record<string, unknown> = { match, cap };
  const inList = (name: string, column: string, values: readonly string[] | undefined): void => {
    if (!values?.length) return;
    where.push(`${column} IN (${values.map((_, i) => `@${name}${i}`).join(', ')})`);
    values.forEach((v, i) => (args[`${name}${i}`] = v));
  };
  inList('agent', 's.agent_id', o.agentIds);
  inList('project', 's.cwd', o.projects);
  inList('kind', 'e.kind', o.kinds);
  if (o.from !== undefined) {
    where.push('e.ts >= @from');
    args.from = o.from;
  }
  if (o.to !== undefined) {
    where.push('e.ts < @to');
    args.to = o.to;
  }
  if (o.failedOnly) where.push('e.failed = 1');
  if (o.sessionId !== undefined) {
    where.push('e.session_id = @sessionId');
    args.sessionId = o.sessionId;
  }
  // CROSS JOIN keeps the FTS table as the outer loop, so rows come in rowid order from the index and
  // bm25() is computed only for the rows kept.
  const rows = db
    .prepare(
      `SELECT e.id, e.session_id, e.seq, e.ts, e.turn, e.kind, e.failed, bm25(history_fts, 1.0, 2.0) AS score
       FROM history_fts CROSS JOIN history_entries e ON e.id = history_fts.rowid CROSS JOIN sessions s ON s.id = e.session_id
       WHERE ${where.join(' AND ')}
       ORDER BY history_fts.rowid DESC LIMIT @cap`,
    )
    .all(args) as Candidate[];

  rows.sort((a, b) => ranked(b.score, b.ts, now) - ranked(a.score, a.ts, now));
  const perSession = new Map<string, number>();
  const chosen: Candidate[] = [];
  for (const r of rows) {
    const n = perSession.get(r.session_id) ?? 0;
    if (n >= o.perSession) continue;
    perSession.set(r.session_id, n + 1);
    chosen.push(r);
    if (chosen.length >= o.limit) break;
  }

  const snippet = db.prepare(
    "SELECT snippet(history_fts, -1, char(1), char(2), '…', 24) AS s FROM history_fts WHERE history_fts MATCH ? AND rowid = ?",
  );
  const detail = db.prepare("SELECT json_extract(detail, '$.tool.title') AS t FROM history_entries WHERE id = ?");
  const sessionInfo = db.prepare(
    `SELECT s.agent_id, s.cwd, coalesce(h.custom_title, s.title, h.info_title, h.prompt_title, '') AS title
     FROM sessions s LEFT JOIN history_sessions h ON h.session_id = s.id WHERE s.id = ?`,
  );
  const sessions = new Map<string, SearchHit['session']>();
  const hits = chosen.map((r): SearchHit => {
    let session = sessions.get(r.session_id);
    if (!session) {
      const row = sessionInfo.get(r.session_id) as { agent_id: string; cwd: string; title: string };
      session = { title: row.title, agentId: row.agent_id, cwd: row.cwd };
      sessions.set(r.session_id, session);
    }
    const marked = (snippet.get(match, r.id) as { s: string | null } | undefined)?.s ?? '';
    return {
      sessionId: r.session_id,
      entryId: r.id,
      seq: r.seq,
      kind: r.kind,
      ts: r.ts,
      turn: r.turn,
      failed: r.failed === 1,
      snippet: parseSnippet(marked),
      toolTitle: r.kind === 'tool' ? ((detail.get(r.id) as { t: string | null }).t ?? null) : null,
      session,
      score: ranked(r.score, r.ts, now),
    };
  });
  return { hits, truncated: rows.length >= cap };
}
