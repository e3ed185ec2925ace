import { parentPort, workerData } from 'node:worker_threads';
import { OpencodeDb, type SqliteModule } from './parsers/opencode';

/**
 * The thread OpenCode's database is read in (see opencode-thread.ts): it opens the file, lists its sessions and
 * reads what they gained, one call at a time, and posts each answer back. It writes nothing.
 */

interface Data {
  /** better-sqlite3's entry file (this code is evaluated, not loaded from a file: it resolves nothing itself). */
  sqlite: string;
  path: string;
}

type Call = { id: number; op: 'sessions'; limitMs: number } | { id: number; op: 'read'; limitMs: number; jobs: Parameters<OpencodeDb['read']>[0]; now: number };

const { sqlite, path } = workerData as Data;
let db: OpencodeDb | null = null;
let opening: Error | null = null;
/** better-sqlite3 could not be loaded here: the caller reads the file itself. */
let unavailable = false;
let Sqlite: SqliteModule | null = null;
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  Sqlite = require(sqlite) as SqliteModule;
} catch {
  unavailable = true;
}
try {
  if (Sqlite) db = new OpencodeDb(path, Sqlite);
} catch (e) {
  opening = e instanceof Error ? e : new Error(String(e));
}

parentPort?.on('message', (call: Call) => {
  if (unavailable) {
    parentPort!.postMessage({ id: call.id, unavailable: true });
    return;
  }
  try {
    if (!db) throw opening ?? new Error('the database is not open');
    const value = call.op === 'sessions' ? db.sessions(call.limitMs) : db.read(call.jobs, call.now, call.limitMs);
    parentPort!.postMessage({ id: call.id, value });
  } catch (e) {
    parentPort!.postMessage({ id: call.id, error: e instanceof Error ? e.message : String(e) });
  }
});
