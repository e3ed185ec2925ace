import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentText, eventually, makeCore, promptAndWait, type TestCore } from './helpers';

/** Session fork (issue 14, unstable session/fork): a new session from an idle one, linked both ways in history. */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

describe('session/fork', () => {
  it('forks an idle session into a new one that goes on from its conversation, linked both ways', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'fork,loadSession', SCENARIO_STORE: join(t.work, '..', 'agent-store.json') });
    const parent = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    expect(parent.canFork).toBe(true);
    expect(parent.forkedFrom).toBeNull();
    await promptAndWait(t, parent.id, 'say the first question');

    const fork = await t.call('sessions.fork', { sessionId: parent.id });
    expect(fork.id).not.toBe(parent.id);
    expect(fork.status).toBe('idle');
    expect(fork.cwd).toBe(parent.cwd);
    expect(fork.forkedFrom).toEqual({ id: parent.id, title: 'say the first question' });
    await eventually(async () => (await t.call('agents.log', { agentId })).text.includes(`session/fork of ${parent.acpSessionId}`), 'the agent to fork');
    // The agent forked the parent's conversation: the fork remembers its prompt, the parent not the fork's.
    await promptAndWait(t, fork.id, 'remember');
    expect(agentText(t.rec, fork.id)).toBe(JSON.stringify(['say the first question', 'remember']));
    await promptAndWait(t, parent.id, 'remember');
    expect(agentText(t.rec, parent.id)).toContain(JSON.stringify(['say the first question', 'remember']));

    // The fork's log starts with the fork request (its setup), and history links both ways.
    const db = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
    const first = db.prepare("SELECT method FROM acp_messages WHERE session_id = ? AND direction = 'c2a' ORDER BY seq LIMIT 1").get(fork.id) as { method: string };
    db.close();
    expect(first.method).toBe('session/fork');
    const { sessions } = await t.call('history.list', {});
    const parentRow = sessions.find((s) => s.id === parent.id)!;
    const forkRow = sessions.find((s) => s.id === fork.id)!;
    expect(parentRow.forks).toEqual([{ id: fork.id, title: 'remember' }]);
    expect(parentRow.forkedFrom).toBeNull();
    expect(forkRow.forkedFrom).toEqual({ id: parent.id, title: 'say the first question' });
    expect(forkRow.forks).toEqual([]);

    // Reopened later (after the agent restarted), the fork still says where it came from.
    await t.call('sessions.close', { sessionId: fork.id });
    await t.call('agents.restart', { agentId });
    const reopened = await t.call('sessions.reopen', { sessionId: fork.id });
    expect(reopened.forkedFrom).toEqual({ id: parent.id, title: 'say the first question' });
  });

  it('is refused, and not offered, when the agent does not advertise session/fork', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    expect(s.canFork).toBe(false);
    const error = await t.callError('sessions.fork', { sessionId: s.id });
    expect(error).toMatchObject({ code: 'unavailable', message: 'this agent does not support forking sessions' });
    expect((await t.call('history.list', {})).sessions).toHaveLength(1);
  });

  it('refuses a fork the agent answers with the id of the open parent, and the parent goes on', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'fork', SCENARIO_FORK_SAME_ID: '1' });
    const parent = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const error = await t.callError('sessions.fork', { sessionId: parent.id });
    expect(error.message).toBe(`session/fork failed: the agent answered session/fork with the id of another open session (${parent.acpSessionId})`);
    expect((await promptAndWait(t, parent.id, 'hello')).stopReason).toBe('end_turn');
    expect(agentText(t.rec, parent.id)).toBe('Hello from the scenario agent.');
    expect((await t.call('sessions.live', {})).sessions.map((s) => s.id)).toEqual([parent.id]);
  });

  it('is refused while the session is working', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'fork' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'hang' }] });
    expect((await t.callError('sessions.fork', { sessionId: s.id })).code).toBe('conflict');
    await t.call('sessions.cancel', { sessionId: s.id, clearQueue: false });
  });
});
