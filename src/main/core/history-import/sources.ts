import { lstatSync, readdirSync, realpathSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { importSourceNames } from '../../../shared/import-sources';
import { geminiHasMessage } from './parsers/gemini-cli';
import type { JsonlSourceId } from './parsers/line-parsers';
import { jsonlHasConversation } from './session-content';

/** Where each agent's command-line tool keeps its sessions, and which of its files are sessions. */
export interface JsonlStore {
  kind: 'jsonl';
  source: JsonlSourceId;
  name: string;
  /** The store's folder. */
  root: string;
  /** Whether a file (path relative to the root, '/'-separated) is a session file. */
  isSession(rel: string): boolean;
  /** How deep session files lie (folders entered at most). */
  maxDepth: number;
  /** Whether a session file holds a conversation (else it is left out); without it, every file does. */
  hasConversation?(path: string): boolean;
}

export interface DatabaseStore {
  kind: 'opencode-db';
  source: 'opencode';
  name: string;
  /** The database file. */
  root: string;
}

export type Store = JsonlStore | DatabaseStore;


/** The stores of this machine's user, as each tool finds them (`env` for CODEX_HOME and XDG_DATA_HOME). */
export function storesOf(home: string, env: Record<string, string | undefined>): Store[] {
  const codexHome = env.CODEX_HOME && env.CODEX_HOME.startsWith('/') ? env.CODEX_HOME : join(home, '.codex');
  const dataHome = env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  const jsonl = (source: JsonlSourceId, root: string, maxDepth: number, isSession: (rel: string) => boolean): JsonlStore => ({
    kind: 'jsonl',
    source,
    name: importSourceNames[source],
    root,
    maxDepth,
    isSession,
  });
  return [
    // <folder>/<session>.jsonl (sub-agents' files lie deeper, under <session>/subagents/).
    jsonl('claude-code', join(home, '.claude', 'projects'), 1, (rel) => /^[^/]+\/[^/]+\.jsonl$/.test(rel)),
    // YYYY/MM/DD/rollout-*.jsonl (older releases: rollout-*.jsonl at the top).
    jsonl('codex', join(codexHome, 'sessions'), 4, (rel) => /(^|\/)rollout-[^/]*\.jsonl$/.test(rel)),
    {
      ...jsonl('gemini-cli', join(home, '.gemini', 'tmp'), 2, (rel) => /^[^/]+\/chats\/session-[^/]*\.jsonl$/.test(rel)),
      hasConversation: (path) => jsonlHasConversation(path, geminiHasMessage),
    },
    jsonl('qwen-code', join(home, '.qwen', 'projects'), 2, (rel) => /^[^/]+\/chats\/[^/]+\.jsonl$/.test(rel)),
    { kind: 'opencode-db', source: 'opencode', name: importSourceNames.opencode, root: join(dataHome, 'opencode', 'opencode.db') },
  ];
}

export interface FoundFile {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface Listing {
  files: FoundFile[];
  /** Entries left out, with the reason (links, FIFOs…). */
  skipped: Array<{ path: string; reason: string }>;
  /** The store's folder does not exist. */
  missing: boolean;
}

/** Most files one store is listed with (a store beyond it is imported in part, and says so). */
export const MAX_FILES_PER_STORE = 500_000;

/**
 * The session files of a store: a walk that never follows a link (a link in the store, to a file or a
 * folder, is listed as skipped with its reason), bounded in depth and count.
 */
export function listStore(store: JsonlStore): Listing {
  const out: Listing = { files: [], skipped: [], missing: false };
  let root: string;
  try {
    // The store's own folder may be a link (dotfiles kept elsewhere); what is inside it is not followed.
    root = realpathSync(store.root);
    if (!lstatSync(root).isDirectory()) return { ...out, missing: true };
  } catch {
    return { ...out, missing: true };
  }
  // `prefix`: the folder's path relative to the root, '/'-separated, ending in '/' (empty at the root).
  const walk = (dir: string, prefix: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      out.skipped.push({ path: dir, reason: `folder not readable (${(e as NodeJS.ErrnoException).code ?? String(e)})` });
      return;
    }
    for (const entry of entries) {
      if (out.files.length >= MAX_FILES_PER_STORE) {
        out.skipped.push({ path: dir, reason: `more than ${MAX_FILES_PER_STORE} session files: the rest of the store is left out` });
        return;
      }
      // (`dir` is a real path without a trailing slash: a join's normalizing is not needed, and costs a rescan of 20,000 files ~10 ms.)
      const path = `${dir}/${entry.name}`;
      const rel = prefix + entry.name;
      if (entry.isSymbolicLink()) {
        // A link could lead anywhere (~/.ssh): listed as left out, never followed.
        out.skipped.push({ path, reason: 'a symbolic link (links in an agent store are not followed)' });
        continue;
      }
      if (entry.isDirectory()) {
        if (depth < store.maxDepth) walk(path, `${rel}/`, depth + 1);
        continue;
      }
      if (!store.isSession(rel)) continue;
      if (!entry.isFile()) {
        out.skipped.push({ path, reason: entry.isFIFO() ? 'a FIFO, not a session file' : 'not a regular file' });
        continue;
      }
      try {
        const st = lstatSync(path);
        if (st.isFile() && (!store.hasConversation || store.hasConversation(path))) out.files.push({ path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino });
      } catch {
        // Gone since it was listed.
      }
    }
  };
  walk(root, '', 0);
  return out;
}

/**
 * The session files among `paths` (a watcher's report), by listStore's rules: under the store's folder, no
 * link on the way, no deeper than it looks, a regular file it takes for a session. Null when a path is a
 * folder or the store's folder is not there (then only a listing finds what changed).
 */
export function findStoreFiles(store: JsonlStore, paths: Iterable<string>): FoundFile[] | null {
  let root: string;
  try {
    root = realpathSync(store.root);
  } catch {
    return null;
  }
  const out: FoundFile[] = [];
  for (const reported of paths) {
    const under = [store.root, root].find((r) => reported.startsWith(`${r}/`));
    if (under === undefined) continue;
    const parts = reported.slice(under.length + 1).split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..')) continue;
    let dir = root;
    let ok = true;
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part);
      const st = lstatSync(dir, { throwIfNoEntry: false });
      if (!st || !st.isDirectory()) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    const path = join(root, ...parts);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) return null;
    if (parts.length - 1 > store.maxDepth || !st.isFile() || !store.isSession(parts.join('/'))) continue;
    if (store.hasConversation && !store.hasConversation(path)) continue;
    out.push({ path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino });
  }
  return out;
}

/** What a store's listing says of it: its sessions, their bytes, and the oldest and newest activity. */
export function summarize(files: readonly FoundFile[]): { sessions: number; bytes: number; from: number | null; to: number | null } {
  let bytes = 0;
  let from = Infinity;
  let to = -Infinity;
  for (const f of files) {
    bytes += f.size;
    from = Math.min(from, f.mtimeMs);
    to = Math.max(to, f.mtimeMs);
  }
  return { sessions: files.length, bytes, from: files.length ? from : null, to: files.length ? to : null };
}
