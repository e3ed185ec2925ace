// A store as Switchboard wrote it before migration 0013 (plain message rows, uncompressed entries, the FTS
// index with five prefix indexes), holding realistic sessions (the history benchmark's generator), for the
// compaction migration tests. Also the messages and search results to compare with after the migration.
import { join } from 'node:path';
import { Corpus, generateSession } from '../../../bench/history/corpus';
import { HistoryIndex } from '../../../src/main/core/history/history-index';
import { INDEX_CAPS } from '../../../src/main/core/history/entry-drafts';
import { searchHistory } from '../../../src/main/core/history/search';
import { openDatabase, type Db } from '../../../src/main/core/store/database';
import { MessageLog, readMessages, type PersistedMessage } from '../../../src/main/core/store/message-log';
import { migrations } from '../../../src/main/core/store/migrations';

export const NOW = Date.UTC(2026, 0, 1);
export const QUERIES = ['token refresh', 'the', 'fix bug', 'migration', 'docker compose', 'src/auth', '"build fail"', 'ECONNRESET', 'pa'];

/** Writes `sessions` sessions of about `perSession` messages each into dataDir/switchboard.db, in the old format. */
export function writeOldFormatStore(dataDir: string, sessions: number, perSession: number): void {
  const db = openDatabase(join(dataDir, 'switchboard.db'), { migrations: migrations.filter((m) => m.version < 13) });
  db.exec('CREATE TABLE store_compaction (session_id TEXT PRIMARY KEY, touched_at INTEGER NOT NULL)'); // MessageLog writes it
  const index = new HistoryIndex(db, INDEX_CAPS, true);
  index.catchUp();
  const log = new MessageLog(db, { maxPacked: 1 });
  log.addIndexer(index.indexer);
  const corpus = new Corpus(7);
  const addSession = db.prepare('INSERT INTO sessions (id, agent_id, cwd, title, status, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?)');
  for (let i = 0; i < sessions; i++) {
    const id = `s${i}`;
    const spec = generateSession(corpus, id, NOW - (sessions - i) * 3_600_000, perSession);
    const msgs = spec.messages.slice(0, perSession);
    addSession.run(id, spec.agentId, spec.cwd, 'closed', spec.createdAt, msgs.at(-1)!.ts);
    log.appendMany(msgs.map((m) => ({ sessionId: id, direction: m.direction, method: m.method, body: m.body, ts: m.ts })));
  }
  log.dispose();
  index.dispose();
  db.exec('DROP TABLE store_compaction');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Every session's messages, without the row ids (a block takes its first row's id). */
export function allMessages(db: Db): Array<Omit<PersistedMessage, 'id'>> {
  const ids = (db.prepare('SELECT id FROM sessions ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
  return ids.flatMap((id) => readMessages(db, id).map(({ id: _, ...m }) => m));
}

/** What search finds for QUERIES (hits in order, with their snippets). */
export function searchResults(db: Db): unknown[] {
  return QUERIES.map((query) =>
    searchHistory(db, { query, limit: 20, perSession: 3, now: NOW }).hits.map((h) => ({ query, entryId: h.entryId, sessionId: h.sessionId, seq: h.seq, kind: h.kind, snippet: h.snippet })),
  );
}
