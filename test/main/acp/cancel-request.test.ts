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
