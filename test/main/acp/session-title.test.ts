import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore } from './helpers';

/**
 * Issue 40: a rename in Switchboard is sent to an agent that offers `session/set_title`; a title the agent sets
 * (session_info_update) is shown, and the user's own title wins over it.
 */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const shownTitle = async (sessionId: string) => (await t.call('sessions.state', { sessionId })).session.title;
const agentLog = async (agentId: string) => (await t.call('agents.log', { agentId })).text;
/** Until the agent's log (its stderr) holds `text`: the agent says what it stored there. */
async function logSays(agentId: string, text: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await agentLog(agentId)).includes(text)) {
    if (Date.now() > deadline) throw new Error(`the agent's log never said ${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('session titles with the agent', () => {
  it('sends a rename to an agent that offers session/set_title, and keeps the user’s title over the agent’s', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'setTitle' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'title "Agent named it"');
    expect(await shownTitle(s.id)).toBe('Agent named it');

    await t.call('history.rename', { sessionId: s.id, title: 'My own name' });
    await logSays(agentId, `set_title ${s.acpSessionId} "My own name"`);
    expect(await shownTitle(s.id)).toBe('My own name');

    // The agent titles it again: the user's name stays.
    await promptAndWait(t, s.id, 'title "Agent renamed it"');
    expect(await shownTitle(s.id)).toBe('My own name');
  });

  it('does not send a rename to an agent that does not offer it', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await t.call('history.rename', { sessionId: s.id, title: 'Mine' });
    await promptAndWait(t, s.id, 'hello');
    expect(await agentLog(agentId)).not.toContain('session/set_title');
    expect(await shownTitle(s.id)).toBe('Mine');
  });
});
