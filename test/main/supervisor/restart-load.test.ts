import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { messageText } from '../../../src/shared/acp-thread';
import { eventually, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

/**
 * An agent that can load sessions (session/load) but not resume them comes back after a restart (the
 * supervisor's after a crash, or the user's): the session is live again, and the agent's replay of the
 * conversation shows nowhere twice (thread, message log, history).
 */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

async function setup(caps: string): Promise<{ t: TestCore; agentId: string; agentStore: string }> {
  t = await makeCore();
  await t.call('settings.set', { key: 'agents.restartDelaySeconds', value: 0.2 });
  // The agent keeps its sessions in this file, so its next process can load them (as a real agent would).
  const agentStore = join(dirname(t.dataDir), 'agent-sessions.json');
  const agentId = await t.addAgent({ SCENARIO_CAPS: caps, SCENARIO_STORE: agentStore });
  return { t, agentId, agentStore };
}

const sessionStates = (t: TestCore, sessionId: string) => t.rec.of('session.state').filter((s) => s.id === sessionId);

async function threadTexts(t: TestCore, sessionId: string): Promise<string[]> {
  const { thread } = await t.call('sessions.state', { sessionId });
  return thread.entries.flatMap((e) => (e.kind === 'user_message' || e.kind === 'agent_message' ? [`${e.kind === 'user_message' ? 'user' : 'agent'}: ${messageText(e.parts)}`] : []));
}

async function historyTexts(t: TestCore, sessionId: string): Promise<string[]> {
  const r = await t.call('history.entries', { sessionId, offset: 0, limit: 500 });
  return r.entries.flatMap((e) => (e.kind === 'prompt' || e.kind === 'user' ? [`user: ${e.text}`] : e.kind === 'agent' ? [`agent: ${e.text}`] : []));
}

/** Rows of the session's message log: `c2a session/load`, `a2c agent_message_chunk`… */
function logRows(t: TestCore, sessionId: string): string[] {
  const rows = t.core.store.db.prepare('SELECT direction, method, body FROM acp_messages WHERE session_id = ? ORDER BY seq').all(sessionId) as Array<{
    direction: string;
    method: string | null;
    body: string;
  }>;
  return rows.map((r) => {
    const kind = r.method === 'session/update' ? /"sessionUpdate"\s*:\s*"([^"]+)"/.exec(r.body)?.[1] : undefined;
    return `${r.direction} ${kind ?? r.method ?? 'response'}`;
  });
}

const count = (rows: string[], row: string) => rows.filter((r) => r === row).length;

/** The agent's own record of the session (its SCENARIO_STORE). */
function agentHistory(agentStore: string, acpSessionId: string): string[] {
  const sessions = JSON.parse(readFileSync(agentStore, 'utf8')) as Array<{ id: string; history: Array<{ role: string; text: string }> }>;
  return (sessions.find((s) => s.id === acpSessionId)?.history ?? []).map((m) => `${m.role}: ${m.text}`);
}

async function agentPid(t: TestCore, agentId: string): Promise<number> {
  const pid = (await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!.status.pid;
  expect(pid).toBeGreaterThan(0);
  return pid!;
}

describe('restarting an agent that can only load sessions', () => {
  it('after a crash, the supervisor loads the session back: live, each message once, the agent remembers', async () => {
    const { t, agentId, agentStore } = await setup('loadSession');
    const s = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    expect((await promptAndWait(t, s.id, 'echo walrus-question')).stopReason).toBe('end_turn');
    const before = await threadTexts(t, s.id);
    expect(before).toHaveLength(2);
    expect(before[0]).toBe('user: echo walrus-question');
    const rowsBefore = logRows(t, s.id);
    const firstPid = await agentPid(t, agentId);

    process.kill(firstPid, 'SIGKILL');
    await t.rec.until(() => sessionStates(t, s.id).find((x) => x.status === 'failed' && /restarting it in/.test(x.error ?? '')), 'the restart notice');
    await t.rec.until(() => sessionStates(t, s.id).at(-1)?.status === 'idle', 'the session to be loaded back');

    const state = await t.call('sessions.state', { sessionId: s.id });
    expect(state.session).toMatchObject({ id: s.id, acpSessionId: s.acpSessionId, status: 'idle', error: null });
    expect(await agentPid(t, agentId)).not.toBe(firstPid);
    expect(sessionStates(t, s.id).some((x) => /cannot resume/.test(x.error ?? ''))).toBe(false);
    // The agent replayed the conversation while loading; the thread shows it once.
    expect(await threadTexts(t, s.id)).toEqual(before);
    // The message log got the session/load and its answer, and none of the replayed updates.
    const rows = await eventually(() => {
      const r = logRows(t, s.id);
      return r.includes('c2a session/load') ? r : null;
    }, 'the session/load row');
    expect(rows.slice(0, rowsBefore.length)).toEqual(rowsBefore);
    expect(count(rows, 'a2c user_message_chunk')).toBe(0);
    expect(count(rows, 'a2c agent_message_chunk')).toBe(count(rowsBefore, 'a2c agent_message_chunk'));
    expect((await historyTexts(t, s.id)).filter((x) => x.includes('walrus-question'))).toHaveLength(2);

    // Prompting works, on the conversation the agent loaded.
    expect((await promptAndWait(t, s.id, 'hello')).stopReason).toBe('end_turn');
    expect(await threadTexts(t, s.id)).toEqual([...before, 'user: hello', 'agent: Hello from the scenario agent.']);
    const remembered = agentHistory(agentStore, s.acpSessionId!);
    expect(remembered[0]).toBe('user: echo walrus-question');
    expect(remembered.slice(-2)).toEqual(['user: hello', 'agent: Hello from the scenario agent.']);
    expect(remembered).toHaveLength(4);
    expect((await historyTexts(t, s.id)).filter((x) => x.includes('walrus-question'))).toHaveLength(2);
    expect(count(logRows(t, s.id), 'a2c user_message_chunk')).toBe(0);
  }, 60_000);

  it('agents.restart loads the session back and lists it in resumedSessions', async () => {
    const { t, agentId, agentStore } = await setup('loadSession');
    const s = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, s.id, 'echo narwhal-question');
    const before = await threadTexts(t, s.id);

    const restarted = await t.call('agents.restart', { agentId });
    expect(restarted.status.state).toBe('running');
    expect(restarted.resumedSessions).toEqual([s.id]);
    const state = await t.call('sessions.state', { sessionId: s.id });
    expect(state.session.status).toBe('idle');
    expect(await threadTexts(t, s.id)).toEqual(before);
    expect(count(logRows(t, s.id), 'a2c user_message_chunk')).toBe(0);

    expect((await promptAndWait(t, s.id, 'hello')).stopReason).toBe('end_turn');
    expect(await threadTexts(t, s.id)).toEqual([...before, 'user: hello', 'agent: Hello from the scenario agent.']);
    expect(agentHistory(agentStore, s.acpSessionId!)).toHaveLength(4);
    expect((await historyTexts(t, s.id)).filter((x) => x.includes('narwhal-question'))).toHaveLength(2);
  }, 60_000);

  it('prefers session/resume when the agent offers both', async () => {
    const { t, agentId } = await setup('loadSession,resume');
    const s = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, s.id, 'hello');
    expect((await t.call('agents.restart', { agentId })).resumedSessions).toEqual([s.id]);
    const rows = await eventually(() => {
      const r = logRows(t, s.id);
      return r.includes('c2a session/resume') ? r : null;
    }, 'the session/resume row');
    expect(rows).not.toContain('c2a session/load');
    expect((await promptAndWait(t, s.id, 'hello')).stopReason).toBe('end_turn');
  }, 60_000);
});
