// A data folder whose store holds the history benchmark's corpus (bench/history/corpus.ts: 10,000 sessions,
// 1,000,000 ACP messages at full scale), written through the app's own message log and history indexer.
// Generated once into a cache folder and reused by later runs (it takes minutes and about 1 GB).
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryIndex } from '../../src/main/core/history/history-index';
import { StorePacker } from '../../src/main/core/history/store-packer';
import { latestSchemaVersion } from '../../src/main/core/store/migrations';
import { MessageLog, type LogEntry } from '../../src/main/core/store/message-log';
import { openSeedStore } from '../../test/support/history-seed';
import { Corpus, historySessions } from '../history/corpus';

export interface MillionStore {
  dataDir: string;
  events: number;
  sessions: number;
  bytes: number;
  generatedSeconds: number | null;
}

const READY = '.complete';

/** Ensures `dataDir/switchboard.db` holds `events` messages over `sessions` sessions (generating it unless a complete one is there). */
export function ensureHistoryStore(dataDir: string, { events = 1_000_000, sessions = Math.max(10, Math.round(events / 100)), log = (_: string) => {} } = {}): MillionStore {
  const dbPath = join(dataDir, 'switchboard.db');
  // A store cached by an earlier schema is written again (the app would migrate it at start-up).
  const marker = join(dataDir, `${READY}-${events}-schema${latestSchemaVersion}`);
  let generatedSeconds: number | null = null;
  if (!existsSync(marker)) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    const started = performance.now();
    const db = openSeedStore(dbPath);
    const index = new HistoryIndex(db);
    index.catchUp();
    // One row per message, as live agents write them (see bench/history/index.ts).
    const messageLog = new MessageLog(db, { maxPacked: 1 });
    messageLog.addIndexer(index.indexer);
    try {
      const corpus = new Corpus(42);
      const insertSession = db.prepare('INSERT INTO sessions (id, agent_id, cwd, title, status, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?)');
      let pending: LogEntry[] = [];
      const flush = (): void => {
        if (pending.length) messageLog.appendMany(pending);
        pending = [];
      };
      let total = 0;
      for (const { index: i, id, spec, messages: msgs } of historySessions(corpus, sessions, events, Date.now())) {
        insertSession.run(id, spec.agentId, spec.cwd, 'closed', spec.createdAt, msgs.at(-1)!.ts);
        for (const m of msgs) pending.push({ sessionId: id, direction: m.direction, method: m.method, body: m.body, ts: m.ts });
        total += msgs.length;
        if (pending.length >= 5000) flush();
        if (i % 1000 === 999) log(`# store: ${i + 1} sessions, ${total} messages (${Math.round((performance.now() - started) / 1000)} s)`);
      }
      flush();
      index.indexLagging();
      // As the app leaves it once the sessions are quiet (store-packer.ts).
      const packer = new StorePacker(db, 0);
      while (packer.step(index.watermark, 1000).sessions > 0);
      packer.vacuum(Number.MAX_SAFE_INTEGER);
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      messageLog.dispose();
      index.dispose();
      db.close();
    }
    generatedSeconds = (performance.now() - started) / 1000;
    mkdirSync(marker);
  }
  return { dataDir, events, sessions, bytes: statSync(dbPath).size, generatedSeconds };
}
