import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HistoryService } from '../../../src/main/core/history/history-service';
import { openDatabase } from '../../../src/main/core/store/database';
import { migrations } from '../../../src/main/core/store/migrations';
import { StoreService } from '../../../src/main/core/store/store-service';
import { Acp, turn } from '../history/acp';
import { tempDir } from '../../support/app-server';

const dirs: string[] = [];
const scratch = (prefix: string): string => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const HISTORY = migrations.findIndex((m) => m.name === 'history');
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

describe('history migration (0003)', () => {
  it('exists and comes after the initial schema', () => {
    expect(HISTORY).toBeGreaterThan(0);
  });

  // A store at every schema version before the history index: data survives and the index is backfilled.
  for (let k = 1; k <= Math.max(1, HISTORY); k++) {
    it(`upgrades a store at schema version ${migrations[k - 1]!.version}: data kept, old messages indexed`, async () => {
      const dir = scratch('sb-migrate-');
      const path = join(dir, 'switchboard.db');
      const old = openDatabase(path, { migrations: migrations.slice(0, k) });
      expect(old.pragma('user_version', { simple: true })).toBe(migrations[k - 1]!.version);
      old.prepare("INSERT INTO settings (key, value_json, updated_at) VALUES ('theme', '\"dark\"', 1)").run();
      const insSession = old.prepare('INSERT INTO sessions (id, agent_id, cwd, title, pinned, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
      insSession.run('s1', 'claude', '/p/api', null, 1, 1000, 2000);
      insSession.run('s2', 'gemini', '/p/web', 'Named by the client', 0, 1000, 3000);
      // Messages written the way the log writes them, before any index existed.
      const ins = old.prepare('INSERT INTO acp_messages (session_id, seq, ts, direction, method, body) VALUES (?, ?, ?, ?, ?, ?)');
      const acp = new Acp();
      const add = (sid: string, msgs: ReturnType<typeof turn>) => msgs.forEach((m, i) => ins.run(sid, i + 1, 5000 + i, m.direction, m.method, m.body));
      add('s1', turn(acp, 'why is the webhook signature invalid', 'The webhook secret was rotated; the HMAC check used the old one.', 6));
      add('s2', [
        ...turn(acp, 'speed up the dashboard', 'Memoized the chart component.', 6),
        acp.tool({ toolCallId: 't1', title: 'Edit chart.tsx', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/p/web/src/chart.tsx', oldText: 'a', newText: 'useMemo(() => series)' }] }),
      ]);
      old.close();

      const store = new StoreService(dir);
      const history = new HistoryService(store);
      closers.push(() => {
        history.dispose();
        store.dispose();
      });
      expect(store.status).toEqual({ ok: true, path });
      const db = store.db;
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
      expect(db.prepare("SELECT value_json FROM settings WHERE key = 'theme'").get()).toEqual({ value_json: '"dark"' });
      expect((db.prepare('SELECT count(*) AS n FROM acp_messages').get() as { n: number }).n).toBeGreaterThan(10);

      // Before catch-up the list says indexing is not done (rather than showing an incomplete history as complete).
      const before = history.list({ limit: 10, offset: 0 });
      expect(before.indexing.done).toBe(false);
      expect(before.sessions.map((s) => s.id)).toEqual(['s1', 's2']); // pinned first

      await history.whenIndexed();
      const after = history.list({ limit: 10, offset: 0 });
      expect(after.indexing).toEqual({ done: true, pendingMessages: 0 });
      expect(after.sessions.find((s) => s.id === 's1')).toMatchObject({ title: 'why is the webhook signature invalid', turnCount: 1, pinned: true });
      expect(after.sessions.find((s) => s.id === 's2')).toMatchObject({ title: 'Named by the client', titleSource: 'client', toolCallCount: 1, filesEdited: 1 });
      const hit = history.search({ query: '"webhook secret" hmac', limit: 5, perSession: 5 }).hits[0]!;
      expect(hit).toMatchObject({ sessionId: 's1', kind: 'agent' });
      expect(history.search({ query: 'useMemo', limit: 5, perSession: 5 }).hits[0]).toMatchObject({ sessionId: 's2', kind: 'tool' });
      db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    });
  }

  it('re-opening an up-to-date store changes nothing and keeps the index', async () => {
    const dir = scratch('sb-migrate-');
    const first = new StoreService(dir);
    first.db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s', 'a', '/p', 1, 1)").run();
    const h1 = new HistoryService(first);
    await h1.whenIndexed();
    const { MessageLog } = await import('../../../src/main/core/store/message-log');
    const log = new MessageLog(first.db);
    h1.attach(log);
    log.appendMany(turn(new Acp(), 'grafana dashboard alerts', 'Added the alert rule.').map((m) => ({ sessionId: 's', ...m })));
    h1.dispose();
    first.dispose();

    const again = new StoreService(dir);
    const h2 = new HistoryService(again);
    closers.push(() => {
      h2.dispose();
      again.dispose();
    });
    expect(h2.list({ limit: 5, offset: 0 }).indexing.done).toBe(true);
    expect(h2.search({ query: 'grafana', limit: 5, perSession: 5 }).hits).toHaveLength(1);
  });
});
