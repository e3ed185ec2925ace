import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ImportSourceId } from '../../../shared/contract/history-import';
import { readNewLines, SkipFile } from './line-reader';
import { listStore, storesOf, summarize, type FoundFile, type JsonlStore, type Listing } from './sources';

/**
 * The agents' stores of an SSH host, listed and read there by the host's helper (src/main/ssh-helper.ts runs
 * this), with the code that lists and reads this machine's: no link followed, FIFOs and devices refused by
 * type, complete lines only, long lines skipped with their reason. Only the listing (paths and identities)
 * and the new lines of the files asked for travel; nothing in a store is written, moved or locked.
 */

/** The name the helper knows these calls by. */
export const IMPORT_STORE_SERVICE = 'historyImport.store';

/**
 * Bytes of lines from which a `read` stops (at the end of the 4 MiB chunk it is in, whose last line may be a
 * long one of up to 32 MiB): within a frame of the channel (64 MiB), base64 adding a third.
 */
export const READ_BUDGET = 2 * 1024 * 1024;
/** Most files one `read` answers for. */
const MAX_FILES_PER_READ = 2000;
/**
 * Most session files, and skipped entries, a `list` answers with per store: its answer stays well within a
 * frame of the channel (the newest files are kept; the rest is said to be left out).
 */
export const MAX_REMOTE_FILES = 100_000;
const MAX_REMOTE_SKIPS = 1000;

export type StoreCall =
  | { m: 'roots'; sources: ImportSourceId[] }
  | { m: 'summary'; sources: ImportSourceId[] }
  | { m: 'list'; sources: ImportSourceId[] }
  | { m: 'read'; files: Array<{ source: ImportSourceId; path: string; offset: number }>; budget?: number };

/** Where a store is on the host (its real path), and whether it is there yet. */
export interface StoreRoot {
  source: ImportSourceId;
  root: string;
  exists: boolean;
}

export interface RemoteSummary {
  source: ImportSourceId;
  root: string;
  found: boolean;
  sessions: number;
  bytes: number;
  from: number | null;
  to: number | null;
  /** Why this store is not imported from a host (OpenCode's database). */
  unsupported?: string;
}

export interface RemoteListing {
  source: ImportSourceId;
  root: string;
  missing: boolean;
  files: FoundFile[];
  skipped: Array<{ path: string; reason: string }>;
  unsupported?: string;
}

/** What one `read` gives of one file: its new complete lines from `start` to `offset`. */
export interface RemoteRead {
  path: string;
  start: number;
  /** Where the next read of it begins (after the last complete line read). */
  offset: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** The lines, UTF-8, joined by '\n' (a line holds none: lines are split on it). */
  text: Buffer;
  /** Each line's number in the part read (1-based), and the indexes of lines that were not valid UTF-8. */
  lineNos: number[];
  invalid: number[];
  /** Lines left out, with the reason. */
  skips: string[];
  /** Everything up to the file's size at opening was read (else: read on from `offset`). */
  done: boolean;
  /** Why the file is not read (the same reasons a local file gets). */
  error?: string;
}

const UNSUPPORTED_DB = "OpenCode's database is not imported from a host yet (only this machine's)";

/** The service the helper runs: `home` and `env` are the host's. */
export function storeHelper(home: string, env: Record<string, string | undefined>): (args: unknown) => Promise<unknown> {
  const stores = storesOf(home, env);
  const jsonl = (source: ImportSourceId): JsonlStore | null => {
    const s = stores.find((x) => x.source === source);
    return s?.kind === 'jsonl' ? s : null;
  };
  return async (args) => {
    const call = args as StoreCall;
    switch (call.m) {
      case 'roots':
        return call.sources.map((source): StoreRoot => {
          const store = jsonl(source);
          if (!store) return { source, root: '', exists: false };
          try {
            const root = realpathSync(store.root);
            return { source, root, exists: lstatSync(root).isDirectory() };
          } catch {
            return { source, root: store.root, exists: false };
          }
        });
      case 'summary':
        return call.sources.map((source): RemoteSummary => {
          const store = jsonl(source);
          const root = stores.find((x) => x.source === source)?.root ?? '';
          if (!store) return { source, root, found: false, sessions: 0, bytes: 0, from: null, to: null, unsupported: UNSUPPORTED_DB };
          const listing = listStore(store);
          return { source, root, found: !listing.missing, ...summarize(listing.files) };
        });
      case 'list':
        return call.sources.map((source): RemoteListing => {
          const store = jsonl(source);
          if (!store) return { source, root: stores.find((x) => x.source === source)?.root ?? '', missing: true, files: [], skipped: [], unsupported: UNSUPPORTED_DB };
          return { source, root: store.root, ...bounded(store, listStore(store)) };
        });
      case 'read':
        return readFiles(call.files, jsonl, Math.min(call.budget ?? READ_BUDGET, READ_BUDGET));
      default:
        throw new Error('unknown call');
    }
  };
}

/** A listing cut to what one answer carries, saying what it left out. */
function bounded(store: JsonlStore, listing: Listing): Listing {
  let { files, skipped } = listing;
  if (skipped.length > MAX_REMOTE_SKIPS) {
    skipped = [...skipped.slice(0, MAX_REMOTE_SKIPS), { path: store.root, reason: `and ${skipped.length - MAX_REMOTE_SKIPS} more entries left out` }];
  }
  if (files.length > MAX_REMOTE_FILES) {
    files = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, MAX_REMOTE_FILES);
    skipped = [...skipped, { path: store.root, reason: `more than ${MAX_REMOTE_FILES} session files on the host: the ${MAX_REMOTE_FILES} newest are imported, the rest is left out` }];
  }
  return { ...listing, files, skipped };
}

/** The store's folder, links resolved (the folder itself may be a link: dotfiles kept elsewhere); null: not there. */
function realRootOf(store: JsonlStore): string | null {
  try {
    return realpathSync(store.root);
  } catch {
    return null;
  }
}

/**
 * Why `path` is not a session file of `store` (null: it is): it must lie in the store's real folder, under
 * folders that are not links, and be named as the store's sessions are. The client names the paths; the
 * host's helper trusts none it was not meant to read.
 */
export function outsideStore(store: JsonlStore, path: string, root: string | null = realRootOf(store)): string | null {
  if (root === null) return 'gone before it could be read';
  if (!path.startsWith(`${root}/`)) return `not in ${store.name}'s store`;
  const rel = path.slice(root.length + 1);
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..') || join(root, rel) !== path || !store.isSession(rel)) return `not a session file of ${store.name}`;
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    try {
      if (!lstatSync(dir).isDirectory()) return 'in a folder that is a symbolic link (links in an agent store are not followed)';
    } catch {
      return 'gone before it could be read';
    }
  }
  return null;
}

function readFiles(files: Array<{ source: ImportSourceId; path: string; offset: number }>, jsonl: (s: ImportSourceId) => JsonlStore | null, budget: number): RemoteRead[] {
  const out: RemoteRead[] = [];
  let total = 0;
  // Each store's real folder, taken once per call (the folders under it are checked for each file).
  const roots = new Map<JsonlStore, string | null>();
  const rootOf = (store: JsonlStore): string | null => {
    if (!roots.has(store)) roots.set(store, realRootOf(store));
    return roots.get(store)!;
  };
  for (const f of files.slice(0, MAX_FILES_PER_READ)) {
    if (total >= budget) break;
    const base: RemoteRead = { path: f.path, start: f.offset, offset: f.offset, ino: 0, size: 0, mtimeMs: 0, text: Buffer.alloc(0), lineNos: [], invalid: [], skips: [], done: true };
    const store = jsonl(f.source);
    const refused = store ? outsideStore(store, f.path, rootOf(store)) : 'not a store read from a host';
    if (refused) {
      out.push({ ...base, error: refused });
      continue;
    }
    const lines: string[] = [];
    let stopped = false;
    try {
      const read = readNewLines(
        f.path,
        f.offset,
        {
          line: (text, lineNo, invalidUtf8) => {
            if (invalidUtf8) base.invalid.push(base.lineNos.length);
            base.lineNos.push(lineNo);
            lines.push(text);
            total += Buffer.byteLength(text, 'utf8') + 1;
          },
          skip: (reason) => base.skips.push(reason),
        },
        () => (stopped = total >= budget),
      );
      out.push({ ...base, offset: read.offset, ino: read.ino, size: read.size, mtimeMs: read.mtimeMs, text: Buffer.from(lines.join('\n'), 'utf8'), done: !stopped });
    } catch (e) {
      out.push({ ...base, error: e instanceof SkipFile ? e.reason : `could not be read (${e instanceof Error ? e.message : String(e)})` });
    }
  }
  return out;
}
