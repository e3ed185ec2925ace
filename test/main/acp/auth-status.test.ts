import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore } from './helpers';

/**
 * Issue 40: what the agent says of its own sign-in (`auth/status`, `auth/status_update`, and Claude Agent's
 * `_auth/status_update`) shows in the agent list, and a sign-in that lapses mid-session is said in the thread
 * with the way to sign in again.
 */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

/** The SDK hands on a notification after a response that came later: wait for what it says. */
const heard = (state: string) => t.rec.until(() => t.rec.of('agent.status').some((x) => x.auth?.state === state), `auth state ${state}`);
const authOf = async (agentId: string) => (await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!.status.auth ?? null;

describe('agent sign-in status', () => {
  it('asks auth/status when advertised, shows signed in with the account, and says a lapse in the thread', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'authStatus' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await heard('signed_in');
    expect(await authOf(agentId)).toMatchObject({ state: 'signed_in', accounts: [{ label: 'Scenario key', detail: 'me@example.com', active: true }] });

    await promptAndWait(t, s.id, 'signout');
    await heard('signed_out');
    expect((await authOf(agentId))?.state).toBe('signed_out');
    const state = await t.call('sessions.state', { sessionId: s.id });
    const notice = state.thread.entries.find((e) => e.kind === 'notice');
    expect(notice).toMatchObject({ kind: 'notice', severity: 'warning', title: 'The agent is signed out', signIn: true });
    expect(notice && 'description' in notice ? notice.description : '').toContain('Scenario key (me@example.com)');
  });

  it('reads Claude Agent’s _auth/status_update (signed in, then "Not logged in")', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'authStatus', SCENARIO_AUTH_STYLE: 'claude' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await heard('signed_in');
    expect(await authOf(agentId)).toMatchObject({ state: 'signed_in', accounts: [{ label: 'Scenario API key', detail: 'SCENARIO_KEY' }] });
    await promptAndWait(t, s.id, 'signout');
    await heard('signed_out');
    expect(await authOf(agentId)).toMatchObject({ state: 'signed_out', accounts: [] });
    const state = await t.call('sessions.state', { sessionId: s.id });
    expect(state.thread.entries.some((e) => e.kind === 'notice' && e.signIn === true)).toBe(true);
  });

  it('bounds what a hostile agent says of its accounts', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'authStatus' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await heard('signed_in');
    await promptAndWait(t, s.id, 'signout hostile');
    await heard('signed_out');
    const auth = (await authOf(agentId))!;
    expect(auth.state).toBe('signed_out');
    expect(auth.accounts.length).toBeLessThanOrEqual(8);
    for (const a of auth.accounts) {
      expect(a.label.length).toBeLessThanOrEqual(200);
      expect((a.detail ?? '').length).toBeLessThanOrEqual(300);
    }
  });

  it('says nothing of sign-in for an agent that does not report it', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'hello');
    expect(await authOf(agentId)).toBeNull();
  });
});
