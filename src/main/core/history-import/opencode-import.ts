import { existsSync, lstatSync, realpathSync } from 'node:fs';
import type { ImportSourceId } from '../../../shared/contract/history-import';
import type { Db } from '../store/database';
import { isOwnSession, ownSessionOf } from './adoption';
import type { FileRow, ImportedFiles } from './imported-files';
import { openOpencode, OpencodeTimeout, OPENCODE_CALL_MS } from './opencode-thread';
import type { OpencodeSession } from './parsers/opencode';
import { cursorOf, type SessionRead } from './parsers/opencode-messages';
import type { SessionMeta, TranscriptItem } from './parsers/types';
import { wireOf, type WireBatch } from './parse-file';
import type { DatabaseStore } from './sources';
import { initialWireState, type WireState } from './transcript';

/**
 * The import of OpenCode's database (one SQLite file, not a file per session). It is read in a thread, within a
 * time limit per call (opencode-thread.ts), and written here, session by session, each remembered under
 * `opencode:<database>#<session id>` with its cursor (opencode-messages.ts). A database that is refused or
 * takes too long is reported and remembered under `opencode:<database>`: the automatic imports (the switch, the
 * start) do not read it again until it changed and some minutes went by; Import tries it again.
 */

export interface OpencodeImportDeps {
  db(): Db;
  files: ImportedFiles;
  skip(path: string, reason: string): void;
  /** Counts sessions: `total` more to do, `done` more done. */
  count(total: number, done: number): void;
  cancelled(): boolean;
  createSession(source: ImportSourceId, agentSessionId: string, meta: SessionMeta, firstTs: number | null, lastTs: number | null, fallbackCwd: string): string;
  /** Appends a session's new messages (in one transaction with what is remembered of it). */
  append(sessionId: string, messages: WireBatch, lastTs: number | null, title: string | undefined): void;
  /** Runs `fn` in one transaction of the store. */
  transaction(fn: () => void): void;
  /** Most one read of the database may take (OPENCODE_CALL_MS unless set: tests). */
  limitMs?: number;
}

/** What is remembered of one OpenCode session. */
interface SavedSession {
  cursor?: unknown;
  wire?: WireState;
  /** The session's time_updated and newest message when it was last read, and whether something was not final. */
  updatedAt?: number;
  last?: string | null;
  pending?: boolean;
}

/** Sessions read per call to the thread. */
const BATCH = 100;
/** An automatic import tries a database that failed again no sooner than this, and only once it changed. */
const RETRY_AFTER_MS = 10 * 60 * 1000;

const CONVERSATION = new Set<TranscriptItem['type']>(['prompt', 'agent', 'tool_call']);

/**
 * The database's identity: its inode, and the size and last change of it with its `-wal` and `-shm` files (OpenCode
 * runs in WAL mode: most of what it wrote lately is in `-wal`). Null when it is not there.
 */
export function opencodeFiles(path: string): { ino: number; bytes: number; mtimeMs: number } | null {
  let root: string;
  try {
    // (A database that is a link is opened where it leads, and SQLite keeps its -wal and -shm there.)
    root = realpathSync(path);
  } catch {
    return null;
  }
  const db = lstatSync(root, { throwIfNoEntry: false });
  if (!db?.isFile()) return null;
  let bytes = db.size;
  let mtimeMs = db.mtimeMs;
  for (const suffix of ['-wal', '-shm']) {
    const st = lstatSync(`${root}${suffix}`, { throwIfNoEntry: false });
    if (st?.isFile()) {
      bytes += st.size;
      mtimeMs = Math.max(mtimeMs, st.mtimeMs);
    }
  }
  return { ino: db.ino, bytes, mtimeMs };
}

/** What the History panel shows of the database: its sessions, size and dates (read in the thread, within the limit). */
export async function summarizeOpencode(root: string, limitMs = OPENCODE_CALL_MS): Promise<{ found: boolean; sessions: number; bytes: number; from: number | null; to: number | null }> {
  const files = opencodeFiles(root);
  if (!files) return { found: false, sessions: 0, bytes: 0, from: null, to: null };
  const reader = openOpencode(root, limitMs);
  try {
    const sessions = await reader.sessions();
    const times = sessions.flatMap((s) => [s.createdAt, s.updatedAt]);
    return { found: true, sessions: sessions.length, bytes: files.bytes, from: times.length ? Math.min(...times) : null, to: times.length ? Math.max(...times) : null };
  } catch {
    return { found: true, sessions: 0, bytes: files.bytes, from: null, to: null };
  } finally {
    reader.close();
  }
}

/** Imports what OpenCode's database gained; `automatic`: a run of the switch or of the start, not the user's Import. */
export async function importOpencode(store: DatabaseStore, deps: OpencodeImportDeps, touched: Set<string>, automatic: boolean): Promise<void> {
  const files = opencodeFiles(store.root);
  if (!files) {
    // (A FIFO would hold the read that opens it.)
    if (existsSync(store.root)) deps.skip(store.root, 'not a regular file: not read');
    return;
  }
  const storeKey = `opencode:${store.root}`;
  const rows = deps.files.rowsOf(store.source);
  const failed = rows.get(storeKey);
  if (failed?.skipped && automatic) {
    const at = (JSON.parse(failed.state ?? '{}') as { failedAt?: number }).failedAt ?? 0;
    const same = failed.ino === files.ino && failed.size === files.bytes && failed.mtime_ms === files.mtimeMs;
    if (same || Date.now() - at < RETRY_AFTER_MS) {
      deps.skip(store.root, `${failed.skipped} (not read again until it changes; Import tries it now)`);
      return;
    }
  }
  const limitMs = deps.limitMs ?? OPENCODE_CALL_MS;
  const reader = openOpencode(store.root, limitMs);
  try {
    const sessions = await reader.sessions();
    deps.count(sessions.length, 0);
    const toRead: Array<{ s: OpencodeSession; key: string; row: FileRow | undefined; saved: SavedSession }> = [];
    for (const s of sessions) {
      const key = `${storeKey}#${s.meta.agentSessionId}`;
      const row = rows.get(key);
      const saved = row ? (JSON.parse(row.state ?? '{}') as SavedSession) : {};
      if (isOwnSession(deps.db(), row)) {
        if (!row!.linked) deps.files.save({ ...row!, linked: 1 });
        deps.count(0, 1);
      } else if (row && saved.updatedAt === s.updatedAt && saved.last === s.last && !saved.pending) {
        deps.count(0, 1);
      } else toRead.push({ s, key, row, saved });
    }
    for (let i = 0; i < toRead.length && !deps.cancelled(); i += BATCH) {
      const batch = toRead.slice(i, i + BATCH);
      const reads = await reader.read(
        batch.map(({ s, saved }) => ({ sessionId: s.meta.agentSessionId, cursor: cursorOf(saved.cursor) })),
        Date.now(),
      );
      if (deps.cancelled()) break;
      deps.transaction(() => {
        batch.forEach((b, k) => {
          const sessionId = writeSession(store, deps, b, reads[k]!);
          if (sessionId) touched.add(sessionId);
          deps.count(0, 1);
        });
      });
    }
    if (failed?.skipped) deps.files.save({ ...failed, skipped: null, state: '{}' });
  } catch (e) {
    const reason = e instanceof OpencodeTimeout ? `${e.message}: skipped (a database that takes this long to read may be made to never end)` : e instanceof Error ? e.message : String(e);
    deps.skip(store.root, reason);
    deps.files.save({ ...(failed ?? deps.files.newRow(storeKey, store.source)), ino: files.ino, size: files.bytes, mtime_ms: files.mtimeMs, state: JSON.stringify({ failedAt: Date.now() }), skipped: reason });
  } finally {
    reader.close();
  }
}

/** Writes what one session gained and remembers where its import stands; returns the History session it added to. */
function writeSession(store: DatabaseStore, deps: OpencodeImportDeps, { s, key, row, saved }: { s: OpencodeSession; key: string; row: FileRow | undefined; saved: SavedSession }, read: SessionRead): string | null {
  const { items } = read;
  const wire = saved.wire ?? initialWireState();
  const base = row ?? deps.files.newRow(key, store.source);
  let sessionId = row?.session_id ?? null;
  if (!sessionId && items.some((i) => CONVERSATION.has(i.type))) {
    const own = ownSessionOf(deps.db(), s.meta.agentSessionId);
    if (own) {
      deps.files.save({ ...base, session_id: own, linked: 1 });
      return null;
    }
    sessionId = deps.createSession(store.source, s.meta.agentSessionId, s.meta, items[0]?.ts ?? null, items.at(-1)?.ts ?? null, store.root);
  }
  if (sessionId && items.length) deps.append(sessionId, wireOf(s.meta.agentSessionId, items, wire, s.updatedAt), items.at(-1)?.ts ?? null, s.meta.title);
  const state: SavedSession = { cursor: read.cursor, wire, updatedAt: s.updatedAt, last: s.last, pending: read.pending };
  deps.files.save({ ...base, session_id: sessionId, state: JSON.stringify(state), mtime_ms: s.updatedAt });
  return sessionId && items.length ? sessionId : null;
}
