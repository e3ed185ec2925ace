import { join } from 'node:path';
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

const reopenedWith = async (sessionId: string) => (await t.call('sessions.effectiveConfig', { sessionId })).config?.method;
const held = async (ids: string[]) => (await t.call('sessions.heldAtAgents', { sessionIds: ids })).held;
async function threadTexts(sessionId: string): Promise<string[]> {
  const { thread } = await t.call('sessions.state', { sessionId });
  return thread.entries.flatMap((e) => (e.kind === 'user_message' || e.kind === 'agent_message' ? [`${e.kind === 'user_message' ? 'user' : 'agent'}: ${messageText(e.parts)}`] : []));
}

describe('session/status', () => {
  it('a session the agent still holds open is resumed without replay; a saved one is loaded; History is told which', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession,status', SCENARIO_STORE: join(t.work, '..', 'agent-store.json') });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'echo alpha');
    const first = await threadTexts(s.id);
    expect(first).toHaveLength(2);
    // Closed in Switchboard; the agent (no session/close) still has it in memory.
    await t.call('sessions.close', { sessionId: s.id });
    expect(await held([s.id])).toEqual({ [s.id]: 'open' });

    await t.call('sessions.reopen', { sessionId: s.id });
    expect(await reopenedWith(s.id)).toBe('session/resume');
    expect(await threadTexts(s.id)).toEqual(first);
    await promptAndWait(t, s.id, 'echo beta');
    const both = await threadTexts(s.id);
    expect(both).toHaveLength(4);
    // Live in Switchboard: History shows it live, the agent is not asked.
    expect(await held([s.id])).toEqual({});

    // A restarted agent holds it saved only: loaded (its replay not shown twice).
    await t.call('sessions.close', { sessionId: s.id });
    await t.call('agents.stop', { agentId });
    expect(await held([s.id])).toEqual({});
    await t.call('agents.start', { agentId });
    expect(await held([s.id])).toEqual({ [s.id]: 'saved' });
    await t.call('sessions.reopen', { sessionId: s.id });
    expect(await reopenedWith(s.id)).toBe('session/load');
    expect(await threadTexts(s.id)).toEqual(both);
  });

  it('a status the client does not know counts as saved; an agent without session/status is not asked', async () => {
    const odd = await t.addAgent({ SCENARIO_CAPS: 'loadSession,status', SCENARIO_STATUS_VALUE: '_warm\u0007' }, 'Odd');
    const s = await t.call('sessions.create', { agentId: odd, cwd: t.work });
    await promptAndWait(t, s.id, 'echo gamma');
    await t.call('sessions.close', { sessionId: s.id });
    expect(await held([s.id])).toEqual({ [s.id]: 'saved' });
    await t.call('sessions.reopen', { sessionId: s.id });
    expect(await reopenedWith(s.id)).toBe('session/load');

    const plain = await t.addAgent({ SCENARIO_CAPS: 'loadSession' }, 'Plain');
    const p = await t.call('sessions.create', { agentId: plain, cwd: t.work });
    await t.call('sessions.close', { sessionId: p.id });
    expect(await held([p.id])).toEqual({});
  });
});
