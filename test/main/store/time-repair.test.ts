import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryService } from '../../../src/main/core/history/history-service';
import { compress } from '../../../src/main/core/store/compression';
import { openDatabase, type Db } from '../../../src/main/core/store/database';
import { packSessionLog } from '../../../src/main/core/store/log-packing';
import { decodeBlock, encodeBlock, MESSAGE_COLUMNS, MessageLog, readMessages, type MessageRow, type PersistedMessage } from '../../../src/main/core/store/message-log';
import { migrations } from '../../../src/main/core/store/migrations';
import { StoreService } from '../../../src/main/core/store/store-service';
import { tempDir } from '../../support/app-server';

// Issue 36: times with a fraction of a ms (an imported session file's mtimeMs) made the store packer write blocks
// whose headers the reader refused ("the store is damaged… restore a backup").

const open: Array<{ dispose(): void } | Db> = [];
afterEach(() => {
  for (const o of open.splice(0).reverse()) 'close' in o ? o.close() : o.dispose();
});

const note = (text: string): string => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'x', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
const prompt = (text: string): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 'x', prompt: [{ type: 'text', text }] } });
const blockRows = (db: Db) => db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE typeof(body) = 'blob' ORDER BY id`).all() as MessageRow[];
const exact = (r: MessageRow) => Number.isInteger(r.ts) && decodeBlock(r, [] as PersistedMessage[]);

/** A block as Switchboard wrote it before times were whole ms: each header's time relative to `ts0`, fraction and all. */
function blockOfOld(messages: Array<{ ts: number; body: string; method: string | null; direction: 'a2c' | 'c2a' }>, ts0: number): Buffer {
  const text = messages.map((m) => `${m.ts - ts0} ${m.direction === 'a2c' ? 1 : 0} ${m.method === null ? -1 : m.method.length} ${m.body.length}\n${m.method ?? ''}${m.body}`).join('');
  return compress(text, 6);
}

describe('stored times are whole ms', () => {
  it('whoever writes them: the log, the blocks a large import writes, and the packer', () => {
    const db = openDatabase(join(tempDir('sb-times-'), 'switchboard.db'));
    open.push(db);
    db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s1', 'a', '/p', 1.5, 2.5)").run();
    expect(db.prepare("SELECT created_at, updated_at FROM sessions WHERE id = 's1'").get()).toEqual({ created_at: 2, updated_at: 3 });
    const log = new MessageLog(db);
    const t = 1_764_400_000_123.4567;
    const written = log.appendMany([
      { sessionId: 's1', direction: 'c2a', method: 'session/prompt', body: prompt('the first'), ts: t },
      { sessionId: 's1', direction: 'a2c', method: 'session/update', body: note('a reply'), ts: t + 10.25 },
    ]);
    expect(written.map((m) => m.ts)).toEqual([1_764_400_000_123, 1_764_400_000_134]);
    const encoded = encodeBlock([{ ts: t + 20.7, direction: 'a2c', method: 'session/update', body: note('from a block') }], t + 20.7, 'fast');
    log.appendBlocks('s1', [{ n: 1, ts: t + 20.7, direction: 'a2c', method: 'session/update', body: encoded }]);
    packSessionLog(db, 's1', Number.MAX_SAFE_INTEGER);
    expect(db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(ts) <> 'integer'").get()).toEqual({ n: 0 });
    expect(blockRows(db).every(exact)).toBe(true);
    expect(readMessages(db, 's1').map((m) => m.ts)).toEqual([1_764_400_000_123, 1_764_400_000_134, 1_764_400_000_144]);
  });

  it('a store written with fractions is read as it is, repaired at start with nothing lost, and only a real damage is called one', () => {
    const dir = tempDir('sb-times-old-');
    const old = openDatabase(join(dir, 'switchboard.db'), { migrations: migrations.filter((m) => m.version < 21) });
    const mtime = 1_764_400_000_123.4567;
    for (const id of ['imported', 'broken']) {
      old.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at, imported_from) VALUES (?, 'cli:claude-code', '/p', ?, ?, 'claude-code')").run(id, mtime, mtime + 1000);
    }
    // An imported session as the store packer left it: its first records took the file's time.
    const messages = [
      { ts: mtime, direction: 'c2a' as const, method: 'session/prompt', body: prompt('plan the otter census') },
      { ts: mtime, direction: 'a2c' as const, method: 'session/update', body: note('An entry of a newer format') },
      { ts: 1_764_400_000_200, direction: 'a2c' as const, method: 'session/update', body: note('counting otters by the weir') },
      { ts: 1_764_400_000_261, direction: 'a2c' as const, method: null, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } }) },
    ];
    const insert = old.prepare('INSERT INTO acp_messages (session_id, seq, n, ts, direction, method, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
    insert.run('imported', 1, messages.length, mtime, 'c2a', 'session/prompt', blockOfOld(messages, mtime));
    // A plain row after it, and a block of another session damaged for real (its bytes changed).
    insert.run('imported', 5, 1, mtime + 500, 'c2a', 'session/prompt', prompt('and the heron count'));
    const damaged = blockOfOld(messages, mtime);
    for (let i = 8; i < damaged.length; i += 13) damaged[i] = damaged[i]! ^ 0x5a;
    insert.run('broken', 1, messages.length, mtime, 'c2a', 'session/prompt', damaged);
    // Read as it is (before any repair): times rounded.
    expect(readMessages(old, 'imported').map((m) => m.ts)).toEqual([1_764_400_000_123, 1_764_400_000_123, 1_764_400_000_200, 1_764_400_000_261, 1_764_400_000_623]);
    old.close();

    // The app starts: the migration and the repair.
    const store = new StoreService(dir);
    const history = new HistoryService(store);
    open.push(store, history);
    const db = store.db;
    const [repaired, broken] = blockRows(db);
    expect(exact(repaired!)).toBe(true);
    expect(Buffer.compare(broken!.body as Buffer, damaged)).toBe(0);
    expect(readMessages(db, 'imported').map((m) => [m.ts, m.body])).toEqual([
      ...messages.map((m) => [Math.round(m.ts), m.body]),
      [1_764_400_000_623, prompt('and the heron count')],
    ]);
    expect(db.prepare("SELECT count(*) AS n FROM acp_messages WHERE session_id = 'imported' AND typeof(ts) <> 'integer'").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT created_at, updated_at FROM sessions WHERE id = 'imported'").get()).toEqual({ created_at: 1_764_400_000_123, updated_at: 1_764_400_001_123 });
    expect(db.prepare("SELECT count(*) AS n FROM history_meta WHERE key = 'integer_times_repair'").get()).toEqual({ n: 0 });

    // Export reads it; the damaged block is still called damaged.
    expect(history.export('imported', 'markdown').text).toContain('counting otters by the weir');
    expect(() => history.export('broken', 'markdown')).toThrow(/history store .* is damaged: message log block .* restore a backup/);
  });
});
