import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, makeCore, promptAndWait, type TestCore } from './helpers';

/**
 * `$/cancel_request` from the client: a session/new, session/load or other request the client gives up on
 * (the user closes or cancels the session, or the agent leaves it unanswered past the hang timeout) is
 * withdrawn, so the agent can stop working on it. The scenario agent (SCENARIO_HANG_ON) answers those
 * requests only when withdrawn, and says so in its log.
 */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const agentLogSays = (agentId: string, text: string) =>
  eventually(async () => (await t.call('agents.log', { agentId })).text.includes(text), `the agent log to say "${text}"`);

/** The live session of `agentId` being set up. */
const startingSession = (agentId: string) =>
  eventually(async () => (await t.call('sessions.live', {})).sessions.find((s) => s.agentId === agentId && s.status === 'starting'), 'the session to start');

describe('$/cancel_request sent by the client', () => {
  it('withdraws session/new when the user cancels the session being created', async () => {
    const agentId = await t.addAgent({ SCENARIO_HANG_ON: 'session/new' });
    const created = t.callError('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const { id: sessionId } = await startingSession(agentId);
    await agentLogSays(agentId, 'hanging: session/new');
    await t.call('sessions.cancel', { sessionId, clearQueue: false });
    const error = await created;
    expect(error.message).toBe('session/new was cancelled');
    await agentLogSays(agentId, 'cancel_request: session/new');
    expect(t.rec.of('session.state').filter((s) => s.id === sessionId).at(-1)?.status).toBe('closed');
  });

  it('withdraws session/new when the client closes the session it is creating, by the id it chose, and keeps no trace of it', async () => {
    const agentId = await t.addAgent({ SCENARIO_HANG_ON: 'session/new' });
    const sessionId = randomUUID();
    const created = t.callError('sessions.create', { agentId, cwd: t.work, additionalDirectories: [], sessionId });
    await agentLogSays(agentId, 'hanging: session/new');
    await t.call('sessions.close', { sessionId });
    expect((await created).message).toBe('session/new was cancelled');
    await agentLogSays(agentId, 'cancel_request: session/new');
    expect((await t.call('sessions.live', {})).sessions.map((s) => s.id)).not.toContain(sessionId);
    expect((await t.call('history.list', {})).sessions.map((s) => s.id)).not.toContain(sessionId);
    // The agent's late answer is not stored for the forgotten session (which would fail the store's write).
    expect(t.rec.of('session.warning').filter((w) => w.kind === 'store_error')).toEqual([]);
    // The agent is still there for the next session.
    const next = await t.addAgent({}, 'Next');
    expect((await t.call('sessions.create', { agentId: next, cwd: t.work, additionalDirectories: [] })).status).toBe('idle');
  });

  it('gives up on a session whose agent is still starting, without waiting for the agent', async () => {
    const agentId = await t.addAgent({ SCENARIO_HANG_INIT: '1' });
    const sessionId = randomUUID();
    const created = t.callError('sessions.create', { agentId, cwd: t.work, additionalDirectories: [], sessionId });
    await startingSession(agentId);
    await t.call('sessions.close', { sessionId });
    expect((await created).message).toBe('session/new was cancelled');
    expect((await t.call('history.list', {})).sessions.map((s) => s.id)).not.toContain(sessionId);
    // The stuck agent is ended here (stopping waits for its start).
    const { agents } = await t.call('agents.list', {});
    const pid = agents.find((a) => a.id === agentId)?.status.pid;
    if (pid) process.kill(pid, 'SIGKILL');
  });

  it('refuses a client-chosen id that is already taken', async () => {
    const agentId = await t.addAgent();
    const { id } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const error = await t.callError('sessions.create', { agentId, cwd: t.work, additionalDirectories: [], sessionId: id });
    expect(error.code).toBe('conflict');
    expect((await t.call('sessions.live', {})).sessions.filter((s) => s.id === id)).toHaveLength(1);
  });

  it('withdraws session/load when the user closes a session while it is being reopened', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession', SCENARIO_HANG_ON: 'session/load' });
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    expect((await promptAndWait(t, sessionId, 'hello')).stopReason).toBe('end_turn');
    await t.call('sessions.close', { sessionId });
    const reopened = t.callError('sessions.reopen', { sessionId });
    await startingSession(agentId);
    await agentLogSays(agentId, 'hanging: session/load');
    await t.call('sessions.close', { sessionId });
    expect((await reopened).message).toBe('session/load was cancelled');
    await agentLogSays(agentId, 'cancel_request: session/load');
    // Nothing stored is lost: the conversation is still there to reopen later.
    const entries = (await t.call('history.entries', { sessionId })).entries;
    expect(entries.some((e) => e.kind === 'agent')).toBe(true);
  });

  it('withdraws a request the agent leaves unanswered past the hang timeout', async () => {
    await t.call('settings.set', { key: 'agents.requestTimeoutSeconds', value: 1 });
    const agentId = await t.addAgent({ SCENARIO_HANG_ON: 'session/new' });
    const error = await t.callError('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    expect(error.message).toMatch(/did not answer session\/new within 1 s/);
    await agentLogSays(agentId, 'cancel_request: session/new');
  });
});
