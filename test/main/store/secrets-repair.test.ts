import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/core/store/database';
import { encodeBlock, readMessages } from '../../../src/main/core/store/message-log';
import { migrations } from '../../../src/main/core/store/migrations';
import { StoreService } from '../../../src/main/core/store/store-service';
import { NOT_STORED } from '../../../src/main/core/store/stored-secrets';
import { tempDir } from '../../support/app-server';

// Stores written before the message log kept only the names of the MCP servers' env values and headers held the
// user's API keys (and the delegation channel's secret) in plain text, in plain rows and in compressed blocks.

const open: StoreService[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});

const KEY = 'sk-live-4f2a9c0ffee-otter';
const TOKEN = 'Bearer tok-heron-77d1e5';
const servers = [
  { name: 'search', command: 'search-mcp', args: ['--fast'], env: [{ name: 'SEARCH_API_KEY', value: KEY }] },
  { type: 'http', name: 'docs', url: 'https://docs.example/mcp', headers: [{ name: 'Authorization', value: TOKEN }] },
];
const request = (id: number, method: string, extra: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method, params: { cwd: '/work/app', mcpServers: servers, ...extra } });
const update = (text: string) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'x', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });

const fileHolds = (dir: string, what: string): boolean =>
  ['switchboard.db', 'switchboard.db-wal'].some((f) => existsSync(join(dir, f)) && readFileSync(join(dir, f)).includes(Buffer.from(what)));

describe('secrets of MCP servers in stores written before they were left out', () => {
  it('are removed at start from plain rows and compressed blocks, with every other message kept, and no longer found in the file', () => {
    const dir = tempDir('sb-secrets-old-');
    const old = openDatabase(join(dir, 'switchboard.db'), { migrations: migrations.filter((m) => m.version < 28) });
    const t = 1_764_400_000_000;
    old.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s1', 'a', '/work/app', ?, ?)").run(t, t);
    const insert = old.prepare('INSERT INTO acp_messages (session_id, seq, n, ts, direction, method, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
    // A session started (a plain row), then reloaded later, its start packed into a compressed block.
    insert.run('s1', 1, 1, t, 'c2a', 'session/new', request(1, 'session/new', {}));
    insert.run('s1', 2, 1, t + 5, 'a2c', 'session/update', update('the otters are counted'));
    const block = [
      { ts: t + 10, direction: 'c2a' as const, method: 'session/load', body: request(2, 'session/load', { sessionId: 'x' }) },
      { ts: t + 12, direction: 'a2c' as const, method: 'session/update', body: update('and the herons too') },
      { ts: t + 13, direction: 'c2a' as const, method: 'session/prompt', body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'x', prompt: [{ type: 'text', text: `my key is ${KEY}` }] } }) },
    ];
    insert.run('s1', 3, block.length, t + 10, 'c2a', 'session/load', encodeBlock(block, t + 10, 6));
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.close();
    expect(fileHolds(dir, TOKEN)).toBe(true);
    const before = readStored(dir);

    const store = new StoreService(dir);
    open.push(store);
    const after = readMessages(store.db, 's1');
    expect(after.map((m) => [m.seq, m.ts, m.direction, m.method])).toEqual(before.map((m) => [m.seq, m.ts, m.direction, m.method]));
    const given = [after[0]!, after[2]!].map((m) => JSON.parse(m.body).params);
    for (const params of given) {
      expect(params.mcpServers[0]).toEqual({ ...servers[0], env: [{ name: 'SEARCH_API_KEY', value: NOT_STORED }] });
      expect(params.mcpServers[1]).toEqual({ ...servers[1], headers: [{ name: 'Authorization', value: NOT_STORED }] });
    }
    // What the user typed is the user's own text, kept as it was; the rest is untouched.
    expect(after[4]!.body).toBe(block[2]!.body);
    expect([after[1]!.body, after[3]!.body]).toEqual([update('the otters are counted'), update('and the herons too')]);
    store.dispose();
    open.length = 0;
    expect(fileHolds(dir, TOKEN)).toBe(false);
    // (The key the user typed in a prompt stays: it is in their own message.)
    expect(readStored(dir, [...migrations]).filter((m) => m.body.includes(KEY)).map((m) => m.method)).toEqual(['session/prompt']);
  });
});

function readStored(dir: string, known = migrations.filter((m) => m.version < 28)) {
  const db = openDatabase(join(dir, 'switchboard.db'), { migrations: known });
  try {
    return readMessages(db, 's1');
  } finally {
    db.close();
  }
}
