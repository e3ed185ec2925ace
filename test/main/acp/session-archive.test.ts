import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, makeCore, promptAndWait, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const listed = async (archived?: 'exclude' | 'include' | 'only') => (await t.call('history.list', { limit: 50, offset: 0, ...(archived ? { archived } : {}) })).sessions.map((s) => s.id);

describe('archive (History, and session/archive|unarchive at the agent)', () => {
  it('an archived session leaves the default list, shows under Archived, stays searchable, and is archived at an agent that offers it', async () => {
    const agentStore = join(t.work, '..', 'agent-store.json');
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession,list,archive', SCENARIO_STORE: agentStore });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const other = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'echo zebracorn');
    expect((await t.call('agents.listSessions', { agentId })).sessions.map((x) => x.sessionId)).toContain(s.acpSessionId);

    expect(await t.call('history.archive', { sessionIds: [s.id], archived: true })).toEqual({ changed: [s.id] });
    expect(await listed()).toEqual([other.id]);
    expect(await listed('only')).toEqual([s.id]);
    expect((await t.call('history.list', { limit: 50, offset: 0, archived: 'only' })).sessions[0]?.archivedAt).toEqual(expect.any(Number));
    expect(new Set(await listed('include'))).toEqual(new Set([s.id, other.id]));
    const hits = await eventually(async () => {
      const r = await t.call('history.search', { query: 'zebracorn', limit: 20, perSession: 3 });
      return r.hits.length > 0 && r.hits;
    }, 'the archived session to be found by search');
    expect(hits.every((h) => h.sessionId === s.id)).toBe(true);

    // At the agent: its live copy is closed first, then the agent hides it from its own list.
    const r = await t.call('sessions.archiveOnAgent', { sessionId: s.id, archived: true });
    expect(r).toMatchObject({ done: true });
    expect(t.rec.of('session.state').some((x) => x.id === s.id && x.status === 'closed')).toBe(true);
    expect((await t.call('agents.listSessions', { agentId })).sessions.map((x) => x.sessionId)).not.toContain(s.acpSessionId);

    // Unarchive: back in both lists.
    expect(await t.call('history.archive', { sessionIds: [s.id], archived: false })).toEqual({ changed: [s.id] });
    expect(await t.call('sessions.archiveOnAgent', { sessionId: s.id, archived: false })).toMatchObject({ done: true });
    expect(new Set(await listed())).toEqual(new Set([s.id, other.id]));
    expect((await t.call('agents.listSessions', { agentId })).sessions.map((x) => x.sessionId)).toContain(s.acpSessionId);
  });

  it("the agent's refusal is said (bounded) and Switchboard's archive stands; an agent without archive is said too", async () => {
    const failing = await t.addAgent({ SCENARIO_CAPS: 'loadSession,archive', SCENARIO_ARCHIVE_ERROR: `disk full \u0007${'x'.repeat(5000)}` }, 'Failing');
    const s = await t.call('sessions.create', { agentId: failing, cwd: t.work });
    await t.call('history.archive', { sessionIds: [s.id], archived: true });
    const e = await t.callError('sessions.archiveOnAgent', { sessionId: s.id, archived: true });
    expect(e.code).toBe('agent_error');
    expect(e.message).toContain('could not archive the session: disk full');
    expect(e.message.length).toBeLessThan(500);
    expect(await listed('only')).toEqual([s.id]);

    const plain = await t.addAgent({ SCENARIO_CAPS: 'loadSession' }, 'Plain');
    const p = await t.call('sessions.create', { agentId: plain, cwd: t.work });
    const r = await t.call('sessions.archiveOnAgent', { sessionId: p.id, archived: true });
    expect(r.done).toBe(false);
    expect(r.reason).toContain('has no archive');
    // Its live session is left alone.
    expect((await t.call('sessions.state', { sessionId: p.id })).session.status).toBe('idle');
  });

  it('reopening an archived session to go on with it takes it out of the archive, in History and at the agent', async () => {
    const agentStore = join(t.work, '..', 'agent-store.json');
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession,list,archive', SCENARIO_STORE: agentStore });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'echo lanternfish');
    await t.call('history.archive', { sessionIds: [s.id], archived: true });
    await t.call('sessions.archiveOnAgent', { sessionId: s.id, archived: true });
    expect(await listed()).toEqual([]);
    expect((await t.call('agents.listSessions', { agentId })).sessions.map((x) => x.sessionId)).not.toContain(s.acpSessionId);

    const reopened = await t.call('sessions.reopen', { sessionId: s.id });
    expect(reopened.status).toBe('idle');
    expect(await listed()).toEqual([s.id]);
    expect(t.rec.of('history.changed').some((e) => e.reason === 'unarchive' && e.sessionIds.includes(s.id))).toBe(true);
    expect((await t.call('agents.listSessions', { agentId })).sessions.map((x) => x.sessionId)).toContain(s.acpSessionId);
    await promptAndWait(t, s.id, 'echo and on');
  });
});
