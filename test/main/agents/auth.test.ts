import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentText, makeCore, turnEnd, type TestCore } from '../acp/helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const text = (s: string) => [{ type: 'text' as const, text: s }];
const sessionStatus = async (id: string) => (await t.call('sessions.state', { sessionId: id })).session.status;
const waitStatus = (id: string, status: string) =>
  t.rec.until(() => t.rec.of('session.state').filter((x) => x.id === id).at(-1)?.status === status, `session ${id} to be ${status}`);
const agentStatus = async (agentId: string) => (await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!;

describe('authentication', () => {
  it('agent method: session/new needs auth; authenticate, then the session opens and queued prompts run', async () => {
    const agentId = await t.addAgent({ SCENARIO_AUTH: 'agent' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(s.status).toBe('auth_required');
    expect(s.acpSessionId).toBeNull();
    expect((await agentStatus(agentId)).status.authMethods).toEqual([{ type: 'agent', id: 'agent-login', name: 'Log in', description: 'The agent logs you in' }]);
    const p = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('hello') });
    expect(p.queued).toBe(true);
    expect((await t.callError('agents.authenticate', { agentId, methodId: 'nope' })).code).toBe('not_found');
    expect(await t.call('agents.authenticate', { agentId, methodId: 'agent-login' })).toEqual({ kind: 'authenticated' });
    expect(await sessionStatus(s.id)).not.toBe('auth_required');
    expect((await turnEnd(t, s.id, p.promptId)).stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toBe('Hello from the scenario agent.');
  });

  it('auth_required on a prompt: the prompt is sent again after authentication', async () => {
    const agentId = await t.addAgent({ SCENARIO_AUTH: 'agent', SCENARIO_AUTH_AT: 'prompt' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(s.status).toBe('idle');
    const p = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('hello') });
    const failed = await turnEnd(t, s.id, p.promptId);
    expect(failed.error?.code).toBe(-32000);
    expect(await sessionStatus(s.id)).toBe('auth_required');
    await t.call('agents.authenticate', { agentId, methodId: 'agent-login' });
    const ends = () =>
      t.rec
        .updates()
        .map((u) => u.event)
        .filter((e) => e.type === 'turn_end' && e.promptId === p.promptId);
    await t.rec.until(() => ends().length === 2, 'the prompt to be sent again');
    expect(ends().map((e) => e.type === 'turn_end' && e.stopReason)).toEqual([null, 'end_turn']);
    expect(agentText(t.rec, s.id)).toBe('Hello from the scenario agent.');
  });

  it('env-var method: the value is stored encrypted, the agent restarted with it; logout forgets it', async () => {
    const agentId = await t.addAgent({ SCENARIO_AUTH: 'env_var', SCENARIO_CAPS: 'logout' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(s.status).toBe('auth_required');
    const method = (await agentStatus(agentId)).status.authMethods[0]!;
    expect(method).toMatchObject({ type: 'env_var', id: 'api-key', vars: [{ name: 'SCENARIO_API_KEY', secret: true, stored: false }] });
    expect((await t.callError('agents.authenticate', { agentId, methodId: 'api-key' })).code).toBe('invalid_params');
    expect((await t.callError('agents.authenticate', { agentId, methodId: 'api-key', values: { OTHER: 'x' } })).code).toBe('invalid_params');

    expect(await t.call('agents.authenticate', { agentId, methodId: 'api-key', values: { SCENARIO_API_KEY: 'good-key' } })).toEqual({ kind: 'authenticated' });
    await waitStatus(s.id, 'idle');
    const summary = await agentStatus(agentId);
    expect(summary.storedSecrets).toEqual(['SCENARIO_API_KEY']);
    expect(summary.status.authMethods[0]).toMatchObject({ vars: [{ stored: true }] });
    // Encrypted at rest, key file private.
    const db = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
    const row = db.prepare('SELECT ciphertext FROM agent_secrets WHERE agent_id = ?').get(agentId) as { ciphertext: string };
    db.close();
    expect(row.ciphertext).not.toContain('good-key');
    expect(row.ciphertext.startsWith('v1:')).toBe(true);
    expect(statSync(join(t.dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    const p = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('hello') });
    expect((await turnEnd(t, s.id, p.promptId)).stopReason).toBe('end_turn');

    await t.call('agents.logout', { agentId });
    expect((await agentStatus(agentId)).storedSecrets).toEqual([]);
    const s2 = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(s2.status).toBe('auth_required');
  });

  it('terminal method: the login command runs in a terminal; on success the agent restarts and sessions open', async () => {
    const marker = join(t.work, '..', 'logged-in');
    const agentId = await t.addAgent({ SCENARIO_AUTH: 'terminal', SCENARIO_AUTH_FILE: marker });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(s.status).toBe('auth_required');
    expect((await agentStatus(agentId)).status.authMethods).toEqual([
      { type: 'terminal', id: 'term-login', name: 'Log in in a terminal', description: null, args: ['--login'] },
    ]);
    const r = await t.call('agents.authenticate', { agentId, methodId: 'term-login', cols: 100, rows: 30 });
    if (r.kind !== 'terminal') throw new Error('expected a terminal');
    expect(r.args.at(-1)).toBe('--login');
    await t.rec.until(() => t.rec.of('agentTerminal.exit').find((e) => e.terminalId === r.terminalId && e.exitCode === 0), 'the login to finish');
    expect(existsSync(marker)).toBe(true);
    const out = t.rec
      .of('agentTerminal.data')
      .filter((d) => d.terminalId === r.terminalId)
      .map((d) => d.data)
      .join('');
    expect(out).toContain('Logged in to the scenario agent.');
    await waitStatus(s.id, 'idle');
    expect(s.id).toBeTruthy();
    const p = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('hello') });
    expect((await turnEnd(t, s.id, p.promptId)).stopReason).toBe('end_turn');
    // Only authentication terminals take input.
    expect((await t.callError('agentTerminal.write', { terminalId: 'nope', data: 'x' })).code).toBe('not_found');
  });
});
