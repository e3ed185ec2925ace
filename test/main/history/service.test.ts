import { afterEach, describe, expect, it } from 'vitest';
import { Router } from '../../../src/main/core/base/router';
import { Acp, createStore, turn, type TestStore } from './acp';

const DAY = 86_400_000;
let now = Date.UTC(2025, 0, 10);

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

async function setup(): Promise<{ t: TestStore; call: (method: string, params: unknown) => Promise<any> }> {
  const t = await createStore(undefined, { now: () => now, retentionMs: 30 * DAY });
  stores.push(t);
  const router = new Router();
  t.history.register(router);
  const call = async (method: string, params: unknown) => {
    const r = await router.invoke(method, params);
    if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
    return r.value;
  };
  return { t, call };
}

describe('history service (through the contract)', () => {
  it('lists sessions pinned first, then by last activity, with (project, agent) groups', async () => {
    const { t, call } = await setup();
    const acp = new Acp();
    t.addSession('a', { agentId: 'claude', cwd: '/p/api' });
    t.addSession('b', { agentId: 'claude', cwd: '/p/web' });
    t.addSession('c', { agentId: 'gemini', cwd: '/p/web' });
    t.addSession('empty', { agentId: 'gemini', cwd: '/p/web', createdAt: now - 5 * DAY });
    t.append('a', turn(acp, 'first', 'one'), now - 3 * DAY);
    t.append('b', turn(acp, 'second', 'two'), now - 2 * DAY);
    t.append('c', turn(acp, 'third', 'three'), now - DAY);

    let r = await call('history.list', {});
    expect(r.sessions.map((s: { id: string }) => s.id)).toEqual(['c', 'b', 'a', 'empty']);
    expect(r.groups).toEqual([
      { cwd: '/p/web', agentId: 'gemini', sessionCount: 2, pinnedCount: 0, lastActivityAt: expect.any(Number) },
      { cwd: '/p/web', agentId: 'claude', sessionCount: 1, pinnedCount: 0, lastActivityAt: expect.any(Number) },
      { cwd: '/p/api', agentId: 'claude', sessionCount: 1, pinnedCount: 0, lastActivityAt: expect.any(Number) },
    ]);
    expect(r.total).toBe(4);
    expect(r.indexing).toEqual({ done: true, pendingMessages: 0 });
    expect(r.sessions.find((s: { id: string }) => s.id === 'empty')).toMatchObject({ title: '', titleSource: 'none', messageCount: 0 });

    await call('history.pin', { sessionId: 'a', pinned: true });
    r = await call('history.list', { limit: 2 });
    expect(r.sessions.map((s: { id: string }) => s.id)).toEqual(['a', 'c']);
    expect(r.sessions[0].pinned).toBe(true);
    expect((await call('history.list', { limit: 2, offset: 2 })).sessions.map((s: { id: string }) => s.id)).toEqual(['b', 'empty']);
    expect((await call('history.list', { projects: ['/p/web'], agentIds: ['claude'] })).sessions.map((s: { id: string }) => s.id)).toEqual(['b']);
    expect((await call('history.list', { pinnedOnly: true })).sessions.map((s: { id: string }) => s.id)).toEqual(['a']);
    expect((await call('history.list', { from: now - 2 * DAY - 1000 })).sessions.map((s: { id: string }) => s.id)).toEqual(['c', 'b']);
  });

  it('renames a session (searchable under its new name) and resets to the automatic title', async () => {
    const { t, call } = await setup();
    t.addSession('s');
    t.append('s', turn(new Acp(), 'Fix the flaky CI job', 'done'));
    const renamed = await call('history.rename', { sessionId: 's', title: '  Payment   webhook retries ' });
    expect(renamed.session).toMatchObject({ title: 'Payment webhook retries', titleSource: 'custom' });
    expect((await call('history.search', { query: 'payment webhook' })).hits[0]).toMatchObject({ sessionId: 's', session: { title: 'Payment webhook retries' } });
    const reset = await call('history.rename', { sessionId: 's', title: null });
    expect(reset.session).toMatchObject({ title: 'Fix the flaky CI job', titleSource: 'prompt' });
    expect((await call('history.search', { query: 'payment webhook' })).hits).toEqual([]);
    t.db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
  });

  it('deletes softly with undo, and purges for good after the retention period', async () => {
    const { t, call } = await setup();
    const acp = new Acp();
    for (const id of ['keep', 'drop']) {
      t.addSession(id);
      t.append(id, turn(acp, `kubernetes question in ${id}`, 'helm chart answer'));
    }
    const del = await call('history.delete', { sessionIds: ['drop', 'nope'] });
    expect(del).toEqual({ deleted: ['drop'], purgeAfter: now + 30 * DAY });
    expect((await call('history.list', {})).sessions.map((s: { id: string }) => s.id)).toEqual(['keep']);
    expect((await call('history.list', { deleted: true })).sessions.map((s: { id: string }) => s.id)).toEqual(['drop']);
    expect((await call('history.search', { query: 'kubernetes' })).hits.map((h: { sessionId: string }) => h.sessionId)).toEqual(['keep']);

    expect(await call('history.undoDelete', { sessionIds: ['drop'] })).toEqual({ restored: ['drop'] });
    expect((await call('history.search', { query: 'kubernetes' })).hits).toHaveLength(2);

    await call('history.delete', { sessionIds: ['drop'] });
    expect(t.history.purge()).toEqual([]); // within the retention period: kept for undo
    now += 31 * DAY;
    expect(t.history.purge()).toEqual(['drop']);
    for (const table of ['sessions', 'acp_messages', 'history_entries', 'history_sessions']) {
      const column = table === 'sessions' ? 'id' : 'session_id';
      expect(t.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = 'drop'`).get(), table).toEqual({ n: 0 });
    }
    t.db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
    // The FTS rows went with the entries.
    const ftsRows = (t.db.prepare('SELECT count(*) AS n FROM history_fts').get() as { n: number }).n;
    expect(ftsRows).toBe((t.db.prepare('SELECT count(*) AS n FROM history_entries').get() as { n: number }).n);
    expect(await call('history.undoDelete', { sessionIds: ['drop'] })).toEqual({ restored: [] });
  });

  it('pages transcript entries for a virtualized view, around a message', async () => {
    const { t, call } = await setup();
    t.addSession('s');
    const acp = new Acp();
    for (let i = 1; i <= 30; i++) t.append('s', turn(acp, `question ${i}`, `answer ${i}`));
    const first = await call('history.entries', { sessionId: 's', limit: 10 });
    expect(first.total).toBe(60);
    expect(first.entries.map((e: { text: string }) => e.text).slice(0, 2)).toEqual(['question 1', 'answer 1']);
    const hit = (await call('history.search', { query: 'answer 17' })).hits.find((h: { kind: string }) => h.kind === 'agent');
    const around = await call('history.entries', { sessionId: 's', aroundSeq: hit.seq, limit: 10 });
    expect(around.targetIndex).toBe(33);
    expect(around.offset).toBe(28);
    expect(around.entries[around.targetIndex - around.offset].text).toBe('answer 17');
    const last = await call('history.entries', { sessionId: 's', offset: 55, limit: 10 });
    expect(last.entries).toHaveLength(5);
  });

  it('rejects bad params and unknown sessions with typed errors', async () => {
    const { call } = await setup();
    await expect(call('history.rename', { sessionId: 'nope', title: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(call('history.export', { sessionId: 'nope', format: 'markdown' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(call('history.export', { sessionId: 's', format: 'html' })).rejects.toMatchObject({ code: 'invalid_params' });
    await expect(call('history.search', { query: 'x', limit: 10_000 })).rejects.toMatchObject({ code: 'invalid_params' });
    await expect(call('history.delete', { sessionIds: [] })).rejects.toMatchObject({ code: 'invalid_params' });
  });
});
