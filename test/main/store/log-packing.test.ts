import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreMigration } from '../../../src/shared/contract/app';
import { EventBus } from '../../../src/main/core/base/event-bus';
import { HistoryService } from '../../../src/main/core/history/history-service';
import { StoreDataError } from '../../../src/main/core/store/compression';
import { openDatabase, type Db } from '../../../src/main/core/store/database';
import { packSessionLog } from '../../../src/main/core/store/log-packing';
import { encodeBlock, expandRows, iterateMessages, MessageLog, readMessages, type LogEntry } from '../../../src/main/core/store/message-log';
import { migrations } from '../../../src/main/core/store/migrations';
import { StoreService } from '../../../src/main/core/store/store-service';
import { repoRoot, tempDir } from '../../support/app-server';
import { onLines } from '../../support/processes';
import { allMessages, searchResults, writeOldFormatStore } from './old-format-store';

const open: Array<{ dispose(): void } | Db> = [];
afterEach(() => {
  for (const o of open.splice(0).reverse()) 'close' in o ? o.close() : o.dispose();
});

function freshStore(): Db {
  const db = openDatabase(join(tempDir('sb-pack-'), 'switchboard.db'));
  open.push(db);
  db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s1', 'a', '/p', 0, 0)").run();
  return db;
}

const note = (text: string): string => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'x', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });

/** Messages of every shape: packed runs, requests and responses, a raw newline, non-ASCII text, a long body. */
function traffic(): LogEntry[] {
  const out: LogEntry[] = [];
  for (let i = 0; i < 1500; i++) {
    const ts = 1_000_000 + i * 37 - (i % 7 === 0 ? 5000 : 0); // clocks are not always monotonic
    if (i % 50 === 0) out.push({ sessionId: 's1', direction: 'c2a', method: 'session/prompt', body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'session/prompt', params: { prompt: [{ type: 'text', text: `prompt ${i} — naïve café 🚀` }] } }), ts });
    else if (i % 50 === 49) out.push({ sessionId: 's1', direction: 'a2c', method: null, body: JSON.stringify({ jsonrpc: '2.0', id: i - 49, result: { stopReason: 'end_turn' } }), ts });
    else if (i === 777) out.push({ sessionId: 's1', direction: 'a2c', method: 'weird method\nwith 1 2 3', body: '{"raw":"a\nb"}', ts });
    else if (i === 900) out.push({ sessionId: 's1', direction: 'a2c', method: 'session/update', body: note('x'.repeat(200_000)), ts });
    else out.push({ sessionId: 's1', direction: 'a2c', method: 'session/update', body: note(`chunk ${i} ${'lorem ipsum '.repeat(i % 9)}`), ts });
  }
  return out;
}

/** Opens the store in `dir` as the app does and waits for its migration; the progress it reported. */
async function migrate(dir: string): Promise<{ store: StoreService; history: HistoryService; events: StoreMigration[] }> {
  const bus = new EventBus();
  const events: StoreMigration[] = [];
  bus.connect((name, p) => name === 'app.storeMigration' && events.push(p as StoreMigration));
  const store = new StoreService(dir);
  const history = new HistoryService(store, bus);
  open.push(store, history);
  history.start();
  await history.whenMigrated();
  return { store, history, events };
}

describe('message log packing', () => {
  it('reads back from compressed blocks exactly what was written', () => {
    const db = freshStore();
    const log = new MessageLog(db, { maxPacked: 64 });
    const input = traffic();
    for (let i = 0; i < input.length; i += 97) log.appendMany(input.slice(i, i + 97));
    const before = readMessages(db, 's1').map(({ id: _, ...m }) => m);
    const last = (db.prepare('SELECT max(id) AS id FROM acp_messages').get() as { id: number }).id;

    const r = packSessionLog(db, 's1', last);
    expect(r.messages).toBe(input.length);
    expect(db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(body) = 'text'").get()).toEqual({ n: 0 });
    expect(r.bytesOut).toBeLessThan(r.charsIn / 4);

    expect(readMessages(db, 's1').map(({ id: _, ...m }) => m)).toEqual(before);
    expect([...iterateMessages(db, 's1')].map(({ id: _, ...m }) => m)).toEqual(before);
    // From the middle of a block.
    expect(readMessages(db, 's1', 1001).map(({ id: _, ...m }) => m)).toEqual(before.slice(1001));
    // Appending after blocks continues the sequence.
    const next = new MessageLog(db).appendMany([{ sessionId: 's1', direction: 'a2c', method: 'session/update', body: note('after') }]);
    expect(next[0]!.seq).toBe(input.length + 1);
  });

  it('leaves rows the history index has not seen, and a short tail while the session is being written', () => {
    const db = freshStore();
    const log = new MessageLog(db, { maxPacked: 1 });
    const stored = log.appendMany(traffic().slice(0, 600));
    packSessionLog(db, 's1', stored[399]!.id, { tail: false });
    const rows = db.prepare("SELECT typeof(body) AS t, sum(n) AS n FROM acp_messages GROUP BY 1 ORDER BY 1").all();
    // 400 seen: full blocks of them compressed (64 KB of text or 512 messages), the rest left plain.
    const blobs = (rows as Array<{ t: string; n: number }>).find((x) => x.t === 'blob')!.n;
    expect(blobs).toBeGreaterThan(0);
    expect(blobs).toBeLessThanOrEqual(400);
    expect(readMessages(db, 's1').map((m) => m.body)).toEqual(stored.map((m) => m.body));
  });

  it('a damaged block is a clear error, for the log and for history requests, not a crash or wrong text', () => {
    const dir = tempDir('sb-pack-bad-');
    const db = openDatabase(join(dir, 'switchboard.db'));
    db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s1', 'a', '/p', 0, 0)").run();
    new MessageLog(db).appendMany(traffic().slice(0, 300));
    packSessionLog(db, 's1', Number.MAX_SAFE_INTEGER);
    const block = db.prepare("SELECT id, body FROM acp_messages WHERE typeof(body) = 'blob' ORDER BY seq LIMIT 1").get() as { id: number; body: Buffer };
    const damaged = Buffer.from(block.body);
    for (let i = 20; i < damaged.length; i += 97) damaged[i] = damaged[i]! ^ 0x5a;
    db.prepare('UPDATE acp_messages SET body = ? WHERE id = ?').run(damaged, block.id);
    expect(() => readMessages(db, 's1')).toThrow(StoreDataError);
    expect(() => readMessages(db, 's1')).toThrow(/message log block \d+ \(session s1, messages 1–\d+\) is damaged/);
    // An unknown format byte too.
    db.prepare('UPDATE acp_messages SET body = ? WHERE id = ?').run(Buffer.from([9, 1, 2, 3]), block.id);
    expect(() => readMessages(db, 's1')).toThrow(/damaged or in an unknown format/);
    // A block in the fast format (a large import's), damaged anywhere: its check catches what brotli would decode.
    const messages = expandRows([{ ...block, sessionId: 's1', seq: 1, n: 1, ts: 0, direction: 'a2c', method: null, body: '{"text":"ünïcödé ✓ 𝄞"}' }]);
    const fast = encodeBlock(messages, 0, 'fast');
    db.prepare('UPDATE acp_messages SET body = ?, n = 1 WHERE id = ?').run(fast, block.id);
    expect(readMessages(db, 's1')[0]!.body).toBe('{"text":"ünïcödé ✓ 𝄞"}');
    for (const at of [1, 4, 5, fast.length - 1]) {
      const bad = Buffer.from(fast);
      bad[at] = bad[at]! ^ 0x01;
      db.prepare('UPDATE acp_messages SET body = ? WHERE id = ?').run(bad, block.id);
      expect(() => readMessages(db, 's1')).toThrow(/message log block \d+ \(session s1, messages 1–1\) is damaged/);
    }
    db.close();

    const store = new StoreService(dir);
    const history = new HistoryService(store);
    open.push(store, history);
    expect(() => history.export('s1', 'json')).toThrow(/history store .* is damaged: message log block .* restore a backup/);
  });
});

describe('migration 0013 (packing of an existing store)', () => {
  it('compresses the log and entries in place, keeps every message and every search result, and reports progress', async () => {
    const dir = tempDir('sb-migrate-');
    writeOldFormatStore(dir, 40, 400);
    const old = openDatabase(join(dir, 'switchboard.db'), { migrations: migrations.filter((m) => m.version < 13) });
    const messages = allMessages(old);
    const results = searchResults(old);
    old.close();
    expect(results.flat().length).toBeGreaterThan(50);

    const { store, history, events } = await migrate(dir);

    const db = store.db;
    expect(db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(body) = 'text'").get()).toEqual({ n: 0 });
    expect((db.prepare("SELECT count(*) AS n FROM history_entries WHERE typeof(detail) = 'blob'").get() as { n: number }).n).toBeGreaterThan(0);
    expect(allMessages(db)).toEqual(messages);
    expect(searchResults(db)).toEqual(results);
    db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(events.map((e) => e.phase)).toEqual(expect.arrayContaining(['indexing', 'packing', 'vacuuming', 'done']));
    expect(events.at(-1)).toMatchObject({ phase: 'done', done: 40, total: 40 });
    expect(events.at(-1)!.eventsPerSecond).toBeGreaterThan(0);
    expect(history.list({ limit: 5, offset: 0 }).indexing).toEqual({ done: true, pendingMessages: 0 });
  });

  it.each(['indexing', 'packing'] as const)('resumes after a SIGKILL while %s, losing nothing', async (phase) => {
    const dir = tempDir('sb-migrate-kill-');
    writeOldFormatStore(dir, 150, 400);
    const old = openDatabase(join(dir, 'switchboard.db'), { migrations: migrations.filter((m) => m.version < 13) });
    const messages = allMessages(old);
    const results = searchResults(old);
    old.close();

    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'migration-child.ts'), dir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const seen: StoreMigration[] = [];
    await new Promise<void>((resolve, reject) => {
      onLines(child.stdout, (l) => {
        if (l === 'finished') return;
        const p = JSON.parse(l) as StoreMigration;
        seen.push(p);
        if (p.phase === phase && p.done > 0 && p.done < p.total && !child.killed) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the migration ended before it was killed (${code}): ${stderr}`))));
    });
    expect(seen.some((p) => p.phase === phase)).toBe(true);

    const { store, history, events } = await migrate(dir);
    const db = store.db;
    expect(events.at(-1)).toMatchObject({ phase: 'done' });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
    expect(db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(body) = 'text'").get()).toEqual({ n: 0 });
    expect(allMessages(db)).toEqual(messages);
    expect(searchResults(db)).toEqual(results);
    // Two migrations of a 60,000-message store, one in a child process: minutes on a machine with no CPU to spare.
  }, 180_000);
});
