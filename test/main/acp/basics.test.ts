import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe('agents', () => {
  it('adds, updates, lists and removes custom agents; the log has stderr and sessionless messages', async () => {
    const agentId = await t.addAgent({ FOO: 'bar' }, 'Mine');
    let agent = (await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!;
    expect(agent).toMatchObject({ name: 'Mine', source: 'custom', env: { FOO: 'bar' }, compat: { missingFileAsEmpty: false }, status: { state: 'stopped' } });
    agent = await t.call('agents.update', { agentId, name: 'Renamed', env: { FOO: 'baz' } });
    expect(agent).toMatchObject({ name: 'Renamed', env: { FOO: 'baz' } });
    expect((await t.callError('agents.update', { agentId: 'nope', name: 'x' })).code).toBe('not_found');
    expect((await t.callError('agents.addCustom', { name: 'x', command: 'y', cwd: 'relative/path' })).code).toBe('invalid_params');

    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'hello');
    const pid = (await t.call('agents.list', {})).agents[0]!.status.pid!;
    const log = await t.call('agents.log', { agentId });
    expect(log.path.startsWith(t.dataDir)).toBe(true);
    expect(log.text).toContain('"method":"initialize"');
    await t.call('agents.remove', { agentId });
    expect((await t.call('agents.list', {})).agents).toEqual([]);
    expect(t.rec.of('session.state').at(-1)).toMatchObject({ id: s.id, status: 'closed' });
    // The process (and its group) is gone.
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
