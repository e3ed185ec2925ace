import { entryPaths, entryText as threadEntryText, type ThreadEntry } from '../../../shared/acp-thread';
import type { HistoryEntryKind } from '../../../shared/contract/history';

/**
 * Entry kinds, plus entries that are searchable but not part of the transcript: the per-session title, and
 * the files each turn changed (from its checkpoints, written by HistoryIndex.recordChanges, not derived
 * from the message log).
 */
export type StoredKind = HistoryEntryKind | 'title' | 'changes';

/** Kinds history.entries leaves out of the transcript. */
export const NOT_IN_TRANSCRIPT = "'title', 'changes'";

export interface TerminalInfo {
  terminalId: string;
  output: string;
  exitCode: number | null;
  signal: string | null;
  truncated: boolean;
}

/**
 * Structured data of an entry, stored as JSON in history_entries.detail. A thread entry is stored as the
 * shared thread model folded it (within the size limits: stored-entry.ts); the other kinds are what the log
 * holds beside the thread. Rows written before history kept thread entries hold older shapes, read through
 * legacy-detail.ts.
 */
export type Detail =
  | { kind: 'entry'; entry: ThreadEntry }
  | { kind: 'write'; path: string; content: string; truncated: boolean }
  | { kind: 'terminal'; terminal: TerminalInfo }
  /** A turn that ended other than as asked without an error (a refusal, a limit, a cancel). */
  | { kind: 'stop'; stopReason: string | null; error: null }
  | { kind: 'title'; title: string }
  /** The files a turn changed in one folder (paths relative to it), and the live prompt id of the turn. */
  | { kind: 'changes'; promptId: string; folder: string; paths: string[]; truncated: boolean };

/** A stored row (history_entries) while thread-rows.ts builds it from thread entries. */
export interface Draft {
  id: number;
  sessionId: string;
  seq: number;
  lastSeq: number;
  ts: number;
  turn: number;
  kind: StoredKind;
  failed: boolean;
  ref: string | null;
  /** Message text for chunk kinds (user, agent, thought) and prompts; kept in `parts` while being appended. */
  parts: string[];
  textLength: number;
  detail: Detail | null;
}

export interface SessionState {
  sessionId: string;
  customTitle: string | null;
  infoTitle: string | null;
  promptTitle: string | null;
  firstTs: number | null;
  lastTs: number | null;
  messageCount: number;
  entryCount: number;
  turnCount: number;
  toolCallCount: number;
  failedToolCalls: number;
  filesTouched: number;
  filesEdited: number;
  failedTurns: number;
  lastStopReason: string | null;
  turn: number;
  turnStartSeq: number;
  openEntryId: number | null;
  openKind: string | null;
  openMessageId: string | null;
  replay: 0 | 1 | 2;
}

export const newSessionState = (sessionId: string): SessionState => ({
  sessionId,
  customTitle: null,
  infoTitle: null,
  promptTitle: null,
  firstTs: null,
  lastTs: null,
  messageCount: 0,
  entryCount: 0,
  turnCount: 0,
  toolCallCount: 0,
  failedToolCalls: 0,
  filesTouched: 0,
  filesEdited: 0,
  failedTurns: 0,
  lastStopReason: null,
  turn: 0,
  turnStartSeq: 0,
  openEntryId: null,
  openKind: null,
  openMessageId: null,
  replay: 0,
});

/**
 * Size limits of what the index keeps per entry (the log keeps everything; exports read the log). Chunk
 * runs longer than `segment` characters continue in a new entry, so appending stays cheap.
 */
export interface Caps {
  segment: number;
  /** One string of a stored thread entry (a terminal's output keeps its end). */
  text: number;
  /** All strings of one stored thread entry together. */
  entry: number;
  write: number;
  /** Output of a client terminal no tool call shows. */
  output: number;
  /** Indexed text of one entry. */
  body: number;
}

export const INDEX_CAPS: Caps = {
  segment: 16_384,
  text: 32_768,
  entry: 262_144,
  write: 16_384,
  output: 32_768,
  body: 65_536,
};

export const NO_CAPS: Caps = {
  segment: Number.POSITIVE_INFINITY,
  text: Number.POSITIVE_INFINITY,
  entry: Number.POSITIVE_INFINITY,
  write: Number.POSITIVE_INFINITY,
  output: Number.POSITIVE_INFINITY,
  body: Number.POSITIVE_INFINITY,
};

/** Cuts to at most max UTF-16 units without splitting a surrogate pair. */
export function head(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return s.slice(0, end);
}

/** The last max UTF-16 units, without splitting a surrogate pair. */
export function tail(s: string, max: number): string {
  if (s.length <= max) return s;
  let start = s.length - max;
  const c = s.charCodeAt(start);
  if (c >= 0xdc00 && c <= 0xdfff) start += 1;
  return s.slice(start);
}

// Snippet markers must never occur in indexed text.
// eslint-disable-next-line no-control-regex
const MARKERS = /[\u0001\u0002]/g;
export const clean = (s: string): string => (s.includes('\u0001') || s.includes('\u0002') ? s.replace(MARKERS, '') : s);

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
export const stripAnsi = (s: string): string => (s.includes('\u001b') ? s.replace(ANSI, '') : s);

export const draftText = (d: Draft): string => {
  if (d.parts.length > 1) d.parts = [d.parts.join('')];
  return d.parts[0] ?? '';
};

/** The searchable text of an entry and the file paths it names. */
export function entryText(d: Draft, caps: Caps): { body: string; paths: string[] } {
  const detail = d.detail;
  const paths: string[] = [];
  let body: string;
  if (!detail) {
    body = draftText(d);
  } else {
    switch (detail.kind) {
      case 'entry':
        body = stripAnsi(threadEntryText(detail.entry).join('\n'));
        for (const p of entryPaths(detail.entry)) paths.push(uriPath(p));
        break;
      case 'write':
        paths.push(detail.path);
        body = detail.content;
        break;
      case 'terminal':
        body = stripAnsi(detail.terminal.output);
        break;
      case 'stop':
        body = `Turn ended: ${detail.stopReason ?? 'unknown'}`;
        break;
      case 'title':
        body = detail.title;
        break;
      case 'changes': {
        const root = detail.folder.replace(/[\\/]+$/, '');
        body = detail.paths.join('\n');
        for (const p of detail.paths) paths.push(root ? `${root}/${p}` : p);
        break;
      }
    }
  }
  return { body: clean(head(body, caps.body)), paths: [...new Set(paths)].map(clean) };
}

/**
 * The indexed columns of an entry. Named paths are indexed as words and as path tokens; paths mentioned in
 * the text as path tokens only.
 */
export function indexedColumns(d: Draft, caps: Caps): { body: string; paths: string } {
  const text = entryText(d, caps);
  // Our private-use markers must not come from the text itself.
  const body = PRIVATE.test(text.body) ? text.body.replace(PRIVATE_ALL, '') : text.body;
  const paths = text.paths.map((p) => (PRIVATE.test(p) ? p.replace(PRIVATE_ALL, '') : p));
  const tokens = new Set<string>();
  for (const p of paths) for (const t of pathTokens(p)) tokens.add(t);
  for (const p of pathsIn(body)) for (const t of pathTokens(p)) tokens.add(t);
  return { body, paths: head([...paths, ...tokens].join('\n'), caps.body) };
}

const PRIVATE = /[\uE000-\uE0FF]/;
const PRIVATE_ALL = /[\uE000-\uE0FF]/g;

/** Marker tokens of the search filters, in the `facets` column (see 0003_history.sql). */
export const facet = {
  agent: (id: string): string => `\uE021${encodeId(id)}`,
  project: (cwd: string): string => `\uE022${encodeId(cwd)}`,
  session: (id: string): string => `\uE023${encodeId(id)}`,
  failed: '\uE024failed',
};
const encodeId = (s: string): string => head(s, 300).replace(/[^\p{L}\p{N}]/gu, (c) => PATH_SEP[c] ?? '\uE004');

export const facetsOf = (d: Draft, session: { agentId: string; cwd: string }): string =>
  [facet.agent(session.agentId), facet.project(session.cwd), facet.session(d.sessionId), ...(d.failed ? [facet.failed] : [])].join(' ');

const PIECES = /[\s"'`()<>[\]{},;|*=]+/;
const PATH_PIECE = /^(?:[~.]{0,2}\/)?[\p{L}\p{N}_.@+-]+(?:\/[\p{L}\p{N}_.@+-]+)*\/?$/u;

/** Path-like words of a text: a/b/c (any depth, optionally rooted or ~), or name.ext with a known extension. */
export function pathsIn(text: string, max = 64): string[] {
  const out: string[] = [];
  if (!text.includes('/') && !text.includes('.')) return out;
  for (let piece of text.split(PIECES)) {
    if (piece.length < 3 || piece.length > 400 || (!piece.includes('/') && !piece.includes('.'))) continue;
    piece = piece.replace(/[.:!?]+$/, '');
    if (!PATH_PIECE.test(piece) || piece.includes('//')) continue;
    if (!isPathLike(piece)) continue;
    out.push(piece);
    if (out.length >= max) break;
  }
  return out;
}


/** File name extensions that make a word look like a file name ("login.ts"). */
export const FILE_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonc md mdx py pyi rs go java kt kts c h cc cpp hpp cs rb php swift m mm sql ' +
    'yaml yml toml ini cfg conf env css scss sass less html htm vue svelte astro sh bash zsh fish ps1 bat txt lock xml ' +
    'gradle proto graphql gql tf hcl dart lua r scala ex exs erl hs ml clj zig nim sol wasm svg png jpg jpeg gif ipynb'
  ).split(' '),
);

const isPathLike = (m: string): boolean => m.includes('/') || FILE_EXTENSIONS.has(m.slice(m.lastIndexOf('.') + 1).toLowerCase());

// Separators inside path tokens: private-use characters, which unicode61 treats as token characters.
const PATH_MARK = '\uE00F';
const PATH_SEP: Record<string, string> = { '/': '\uE000', '.': '\uE001', '-': '\uE002', '_': '\uE003' };
export const PATH_DEPTH = 10;

/** One token for a path fragment ("auth/login.ts"), as indexed and as searched. */
export const encodePath = (fragment: string): string =>
  PATH_MARK + head(fragment, 300).replace(/[^\p{L}\p{N}]/gu, (c) => PATH_SEP[c] ?? '\uE004');

/** Path components, split on / and \ . */
export const pathParts = (path: string): string[] => path.split(/[\\/]+/).filter((p) => p.length > 0);

/** Tokens for the trailing parts of a path: login.ts, auth/login.ts, src/auth/login.ts … (up to PATH_DEPTH). */
export function pathTokens(path: string): string[] {
  if (!isPathLike(path) && !path.includes('\\')) return [];
  const parts = pathParts(path);
  const out: string[] = [];
  for (let i = Math.max(0, parts.length - PATH_DEPTH); i < parts.length; i++) out.push(encodePath(parts.slice(i).join('/')));
  return out;
}

/** Whether what the user typed is a path or file name ("src/auth", "login.ts"). */
export const looksLikePath = (term: string): boolean =>
  /[\\/]/.test(term) ? /[\p{L}\p{N}]/u.test(term) : /^[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*\.[A-Za-z0-9]{1,8}$/u.test(term) && isPathLike(term);

/** file:///a/b%20c → /a/b c; other URIs unchanged. */
export function uriPath(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  const rest = uri.slice('file://'.length);
  try {
    return decodeURIComponent(rest.startsWith('/') ? rest : rest.slice(rest.indexOf('/')));
  } catch {
    return rest;
  }
}
