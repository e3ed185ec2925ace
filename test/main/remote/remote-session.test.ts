/**
 * Sessions on an SSH host, through the contract, against a real OpenSSH server (test/support/sshd.ts): the
 * host listed from the ssh config, its unknown key shown by fingerprint and recorded only once accepted, a
 * session of the scenario agent on the host (its process, its file writes and its terminals are the remote
 * user's, in the remote folder), folder checks and completion on the host, and the session reopened on its
 * host after a restart.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import type { SshHost } from '../../../src/main/core/host/ssh/ssh-host';
import { agentText, makeCore, turnEnd, type TestCore } from '../acp/helpers';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the remote session tests: ${skip}`);

const HOST = 'ssh:sbtest';

describe.skipIf(skip !== null)('a session on an SSH host', () => {
  let sshd: Sshd;
  let t: TestCore;
  let folder: string;
  let agentId: string;
  let uid: number;

  beforeAll(async () => {
    sshd = await startSshd();
    await sshd.setKnownHosts('empty');
    t = await makeCore({ sshConfigFile: sshd.configFile });
    uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
    folder = join(sshd.home, `proj-${randomBytes(4).toString('hex')}`);
    mkdirSync(folder);
    chownSync(folder, uid, uid);
    const { command, args } = scenarioAgentCommand();
    agentId = (await t.call('agents.addCustom', { name: 'Scenario', command, args, env: { SCENARIO_CAPS: 'loadSession', SCENARIO_STORE: join(folder, '.scenario-store.json') }, cwd: t.work })).id;
  }, 60_000);

  afterAll(async () => {
    await t?.dispose();
    await sshd?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('lists the alias of the ssh config with what ssh will use', async () => {
    const { hosts } = await t.call('hosts.list', {});
    expect(hosts[0]).toMatchObject({ id: 'local', state: 'connected' });
    expect(hosts.find((h) => h.id === HOST)).toMatchObject({ source: 'config', state: 'disconnected', resolved: { user: sshd.user, hostname: '127.0.0.1', port: sshd.port } });
  });

  it('shows an unknown key by its fingerprint, refuses another one, and connects once the one shown is accepted', async () => {
    const first = await t.call('hosts.connect', { hostId: HOST });
    expect(first.ok).toBe(false);
    if (first.ok) return;
    expect(first.failure.kind).toBe('host-key-unknown');
    const expected = spawnSync('ssh-keygen', ['-lf', sshd.hostKeyPub], { encoding: 'utf8' }).stdout.split(' ')[1];
    expect(first.failure.kind === 'host-key-unknown' && first.failure.fingerprint).toBe(expected);
    expect(first.failure.message).toContain(expected);

    const wrong = await t.call('hosts.connect', { hostId: HOST, acceptHostKey: 'SHA256:not-the-key-shown' });
    expect(wrong.ok).toBe(false);
    expect(readFileSync(sshd.knownHostsFile, 'utf8').trim()).toBe('');

    const steps = t.rec.of('hosts.progress').length;
    const accepted = await t.call('hosts.connect', { hostId: HOST, acceptHostKey: expected! });
    expect(accepted).toMatchObject({ ok: true, host: { id: HOST, state: 'connected' } });
    expect(readFileSync(sshd.knownHostsFile, 'utf8')).toContain(readFileSync(sshd.hostKeyPub, 'utf8').split(' ')[1]);
    expect(t.rec.of('hosts.progress').slice(steps).map((p) => p.step)).toEqual(['resolving', 'authenticating', 'preparing']);
    expect(t.rec.of('hosts.state').at(-1)).toEqual({ hostId: HOST, state: 'connected', error: null });
  }, 90_000);

  it('checks and completes folders on the host, not here', async () => {
    expect(await t.call('hosts.checkFolder', { hostId: HOST, path: folder })).toMatchObject({ ok: true });
    expect(await t.call('hosts.checkFolder', { hostId: HOST, path: `${folder}-missing` })).toMatchObject({ ok: false, message: expect.stringContaining('no such folder') });
    const { folders } = await t.call('hosts.completeFolder', { hostId: HOST, prefix: `${sshd.home}/proj-` });
    expect(folders).toContain(folder);
    const refused = await t.callError('sessions.create', { agentId, hostId: HOST, cwd: `${folder}-missing` });
    expect(refused.message).toMatch(/no such folder.*on sbtest/);
  }, 60_000);

  it('runs the agent on the host: its writes and its terminals are the remote user\'s, in the remote folder; it comes back after a restart', async () => {
    const session = await t.call('sessions.create', { agentId, hostId: HOST, cwd: folder });
    expect(session).toMatchObject({ hostId: HOST, cwd: folder, status: 'idle' });

    let p = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'whereami' }] });
    await turnEnd(t, session.id, p.promptId, 60_000);
    expect(JSON.parse(agentText(t.rec, session.id)).cwd).toBe(folder);

    const file = join(folder, 'notes', 'hello.txt');
    p = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: `write ${file} written on the host` }] });
    await turnEnd(t, session.id, p.promptId, 60_000);
    // fs/write_text_file went to the host: the file is the remote user's.
    expect(readFileSync(file, 'utf8')).toBe('written on the host');
    expect(statSync(file).uid).toBe(uid);

    p = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'terminal {"command":"sh","args":["-c","id -un; pwd"]}' }] });
    await turnEnd(t, session.id, p.promptId, 60_000);
    expect(agentText(t.rec, session.id)).toContain(`${sshd.user}\\n${folder}\\n`);

    // A shell tab on the host.
    const shell = await t.call('pty.createShell', { hostId: HOST, cols: 80, rows: 24, cwd: folder });
    await t.call('pty.write', { id: shell.id, data: 'id -un > shell-was-here\n' });
    await t.rec.until(() => existsSync(join(folder, 'shell-was-here')) && readFileSync(join(folder, 'shell-was-here'), 'utf8').trim() === sshd.user, 'the remote shell to write its file', 30_000);
    await t.call('pty.kill', { id: shell.id });

    // The connection drops (its ControlMaster killed): the host says it is reconnecting, then connected, and
    // the session goes on.
    const seen = t.rec.of('hosts.state').length;
    const master = await (t.core.hosts.get(HOST) as SshHost).masterPid();
    expect(master).toBeGreaterThan(0);
    process.kill(master!, 'SIGKILL');
    await t.rec.until(() => t.rec.of('hosts.state').slice(seen).some((e) => e.state === 'reconnecting'), 'the host to say it is reconnecting', 30_000);
    await t.rec.until(() => t.rec.of('hosts.state').at(-1)?.state === 'connected', 'the host to be connected again', 60_000);
    p = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'echo after-the-drop' }] });
    await turnEnd(t, session.id, p.promptId, 60_000);
    expect(agentText(t.rec, session.id)).toContain('after-the-drop');

    // Restart: the session's host is recorded, and reopening it reconnects the host.
    await t.core.dispose();
    const again = await makeCore({ sshConfigFile: sshd.configFile, dataDir: t.dataDir });
    try {
      const plan = await again.call('sessions.reopenPlan', { sessionId: session.id });
      expect(plan.mode).toBe('load');
      const reopened = await again.call('sessions.reopen', { sessionId: session.id });
      expect(reopened).toMatchObject({ id: session.id, hostId: HOST, cwd: folder });
      const q = await again.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'whereami' }] });
      await turnEnd(again, session.id, q.promptId, 60_000);
      expect(agentText(again.rec, session.id)).toContain(folder);
    } finally {
      await again.core.dispose();
    }
  }, 240_000);

  it('opens a past session read-only, with the reason, when its host cannot be reached', async () => {
    const other = await makeCore({ sshConfigFile: await sshd.writeConfig('ssh_config_down', ['Host sbtest', '  HostName 127.0.0.1', '  Port 1', '  ConnectTimeout 3', `  UserKnownHostsFile ${sshd.knownHostsFile}`]) });
    try {
      const db = other.core.store.db;
      db.prepare("INSERT INTO sessions (id, agent_id, acp_session_id, host_id, cwd, title, status, created_at, updated_at) VALUES ('s-down', ?, 'acp-x', ?, ?, NULL, 'closed', 1, 1)").run(
        (await other.call('agents.addCustom', { name: 'Scenario', ...scenarioAgentCommand(), env: {}, cwd: other.work })).id,
        HOST,
        folder,
      );
      const plan = await other.call('sessions.reopenPlan', { sessionId: 's-down' });
      expect(plan.mode).toBeNull();
      expect(plan.reason).toMatch(/ran on sbtest, and it cannot be reached: .*The transcript is read-only/);
    } finally {
      await other.dispose();
    }
  }, 60_000);
});
