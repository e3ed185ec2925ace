import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageText } from '../../../src/shared/acp-thread';
import { makeCore, promptAndWait, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const texts = async (sessionId: string) =>
  (await t.call('sessions.state', { sessionId })).thread.entries.flatMap((e) =>
    e.kind === 'user_message' || e.kind === 'agent_message' ? [`${e.kind}: ${messageText(e.parts)}`] : [],
  );

describe('reopening stored sessions', () => {
  it('resumes a closed session when the agent supports session/resume; the thread starts from the store', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume,close,list' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'hello');
    const listed = await t.call('agents.listSessions', { agentId });
    expect(listed.sessions.map((x) => x.sessionId)).toEqual([s.acpSessionId]);
    await t.call('sessions.close', { sessionId: s.id });
    const again = await t.call('sessions.reopen', { sessionId: s.id });
    expect(again).toMatchObject({ id: s.id, acpSessionId: s.acpSessionId, status: 'idle' });
    expect(await texts(s.id)).toEqual(['user_message: hello', 'agent_message: Hello from the scenario agent.']);
    await promptAndWait(t, s.id, 'hello');
    expect((await texts(s.id)).length).toBe(4);
  });

  it('loads a session (the agent replays it) when it cannot resume', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await t.call('sessions.close', { sessionId: s.id });
    await t.call('sessions.reopen', { sessionId: s.id });
    expect(await texts(s.id)).toEqual(['user_message: earlier question', 'agent_message: earlier answer']);
  });

  it('says so when the agent can neither resume nor load', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await t.call('sessions.close', { sessionId: s.id });
    expect((await t.callError('sessions.reopen', { sessionId: s.id })).code).toBe('unavailable');
    expect((await t.callError('agents.listSessions', { agentId })).code).toBe('unavailable');
    expect((await t.callError('sessions.reopen', { sessionId: 'nope' })).code).toBe('not_found');
  });

  it('routes updates sent before the session/new answer to the new session', async () => {
    const agentId = await t.addAgent({ SCENARIO_EARLY_UPDATE: '1' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    // (The agent replaces the command list again shortly after; look at what arrived.)
    const early = t.rec
      .updates()
      .filter((u) => u.sessionId === s.id)
      .find((u) => u.event.type === 'update' && u.event.update.sessionUpdate === 'available_commands_update' && u.event.update.availableCommands[0]?.name === 'early');
    expect(early?.seq).toBeGreaterThan(0);
    expect(t.rec.of('session.warning')).toEqual([]);
  });
});
