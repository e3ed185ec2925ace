import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MessageLog } from '../../src/main/store/message-log';
import { agentText, makeCore, promptAndWait, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

describe('ACP client basics', () => {
  it('starts an agent, creates a session and runs a turn', async () => {
    const agentId = await t.addAgent();
    const session = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(session.status).toBe('idle');
    expect(session.acpSessionId).toMatch(/^scn-/);
    const end = await promptAndWait(t, session.id, 'hello');
    expect(end.stopReason).toBe('end_turn');
    expect(agentText(t.rec, session.id)).toBe('Hello from the scenario agent.');
    const status = t.rec.of('agent.status').at(-1)!;
    expect(status.state).toBe('running');
    expect(status.agentInfo?.name).toBe('scenario-agent');
  });
});
