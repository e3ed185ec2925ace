/**
 * A host reached through a jump host (`ProxyJump` in the user's ssh config), against a real OpenSSH server
 * (test/support/sshd.ts): the test's sshd jumps to itself on 127.0.0.1. The host list shows the jump ssh will
 * use; connecting goes through it (a jump host that is down makes the same host unreachable, in words; one
 * whose key is not known yet is named, and its key accepted by connecting to it); folder checks run on the host
 * behind it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn as spawnPty } from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/app-server';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { makeCore, type TestCore } from '../acp/helpers';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the ProxyJump tests: ${skip}`);

describe.skipIf(skip !== null)('a host behind a jump host', () => {
  let sshd: Sshd;
  let t: TestCore;
  let configFile: string;

  beforeAll(async () => {
    sshd = await startSshd();
    // The test's own config (the sbtest block, its identity and known_hosts) and two hosts behind jumps: one
    // through sbtest itself, one through a jump host whose port nothing listens on.
    const base = await readFile(sshd.configFile, 'utf8');
    const behind = (name: string, jump: string): string[] =>
      base
        .split('\n')
        .slice(0, base.split('\n').findIndex((l, i) => i > 0 && l.startsWith('Host ')))
        .map((l) => (l.startsWith('Host ') ? `Host ${name}` : l))
        .concat([`  ProxyJump ${jump}`]);
    const config = await sshd.writeConfig('ssh_config_jump', [
      ...base.trimEnd().split('\n'),
      ...behind('sbbehind', 'sbtest'),
      ...behind('sbbehinddead', 'sbdeadjump'),
      ...behind('sbbehindstranger', 'sbstrangerjump'),
      ...behind('sbbehindtty', 'sbttyjump'),
      ...behind('sbttyjump', 'none').map((l) => (l.includes('UserKnownHostsFile') ? `  UserKnownHostsFile ${sshd.dir}/known_hosts_tty` : l)),
      // The same server as a jump host whose key the user has not accepted (its own empty known_hosts).
      ...behind('sbstrangerjump', 'none').map((l) => (l.includes('UserKnownHostsFile') ? `  UserKnownHostsFile ${sshd.dir}/known_hosts_empty` : l)),
      'Host sbdeadjump',
      '  HostName 127.0.0.1',
      '  Port 1',
      `  User ${sshd.user}`,
      `  IdentityFile ${sshd.identityFile}`,
      '  IdentitiesOnly yes',
    ]);
    configFile = config;
    t = await makeCore({ sshConfigFile: config });
  }, 60_000);

  afterAll(async () => {
    await t?.dispose();
    await sshd?.stop();
  });

  it('lists the jump ssh will use, connects through it, and runs on the host behind it', async () => {
    const { hosts } = await t.call('hosts.list', {});
    expect(hosts.find((h) => h.id === 'ssh:sbbehind')).toMatchObject({ source: 'config', resolved: { hostname: '127.0.0.1', port: sshd.port, proxyJump: 'sbtest' } });
    const r = await t.call('hosts.connect', { hostId: 'ssh:sbbehind' });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, host: { state: 'connected' } });
    expect(await t.call('hosts.checkFolder', { hostId: 'ssh:sbbehind', path: sshd.home })).toMatchObject({ ok: true });
    expect(await t.call('hosts.checkFolder', { hostId: 'ssh:sbbehind', path: `${sshd.home}/no-such-folder` })).toMatchObject({ ok: false });
  }, 90_000);

  it('a jump host whose key is not known is named, and once its key is accepted the host behind it connects', async () => {
    await writeFile(join(sshd.dir, 'known_hosts_empty'), '');
    const r = await t.call('hosts.connect', { hostId: 'ssh:sbbehindstranger' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.kind).toBe('failed');
    expect(r.failure.message).toMatch(/reached through sbstrangerjump, whose host key is not in your known_hosts yet: connect to sbstrangerjump once/);
    // Connecting to the jump host shows its key; accepting it lets the host behind it connect.
    const jump = await t.call('hosts.connect', { hostId: 'ssh:sbstrangerjump' });
    expect(jump.ok).toBe(false);
    if (jump.ok || jump.failure.kind !== 'host-key-unknown') throw new Error(JSON.stringify(jump));
    expect(await t.call('hosts.connect', { hostId: 'ssh:sbstrangerjump', acceptHostKey: jump.failure.fingerprint })).toMatchObject({ ok: true });
    expect(await t.call('hosts.connect', { hostId: 'ssh:sbbehindstranger' })).toMatchObject({ ok: true });
  }, 90_000);

  it('started from a terminal, never asks there about the jump host (the ssh it starts for the jump has no terminal either)', async () => {
    await writeFile(join(sshd.dir, 'known_hosts_tty'), '');
    // The connect in a process of its own on a pty, as `npm start` from a shell runs the app.
    const term = spawnPty(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/fixtures/ssh-connect/connect.ts'), configFile, 'sbbehindtty', join(sshd.dir, 'rt-tty')], {
      cwd: repoRoot,
      env: { ...process.env } as Record<string, string>,
      cols: 200,
      rows: 50,
    });
    let out = '';
    term.onData((d) => (out += d));
    const code = await new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    expect(out).not.toMatch(/Are you sure you want to continue connecting|password:/i);
    expect(code, out).toBe(0);
    const result = JSON.parse(/RESULT (.*)/.exec(out)![1]!) as { ok: boolean; failure?: { message: string } };
    expect(result.ok).toBe(false);
    expect(result.failure?.message).toMatch(/reached through sbttyjump, whose host key is not in your known_hosts yet/);
  }, 90_000);

  it('a jump host that is down leaves the host behind it unreachable, said in words', async () => {
    const r = await t.call('hosts.connect', { hostId: 'ssh:sbbehinddead' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.kind).toBe('unreachable');
    expect(r.failure.message).toMatch(/\S/);
  }, 60_000);
});
