/**
 * SshHost against a real OpenSSH server (test/support/sshd.ts): Debian's sshd on 127.0.0.1, a separate user
 * with its own home, the client on its own ssh_config and known_hosts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsRefusal } from '../../../src/main/core/host/files';
import type { HostProcess } from '../../../src/main/core/host/host';
import { SshHost, type SshHostConfig } from '../../../src/main/core/host/ssh/ssh-host';
import { groupRunning } from '../../support/processes';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the SSH host tests: ${skip}`);

async function output(p: HostProcess): Promise<{ out: string; err: string; code: number | null }> {
  let out = '';
  let err = '';
  p.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  p.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exit = await p.closed;
  return { out, err, code: exit.code };
}

describe.skipIf(skip !== null)('SshHost on a real sshd', () => {
  let sshd: Sshd;
  let runtimeDir: string;
  let host: SshHost;
  const hosts: SshHost[] = [];

  const make = (over: Partial<SshHostConfig> = {}): SshHost => {
    const h = new SshHost({
      id: `test-${randomBytes(3).toString('hex')}`,
      destination: sshd.alias,
      configFile: sshd.configFile,
      runtimeDir,
      instance: randomBytes(6).toString('hex'),
      ...over,
    });
    hosts.push(h);
    return h;
  };

  beforeAll(async () => {
    sshd = await startSshd();
    runtimeDir = await mkdtemp(join(tmpdir(), 'sbrt-'));
    host = make();
    const steps: string[] = [];
    const r = await host.connect((s) => steps.push(s));
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    expect(steps).toEqual(['resolving', 'authenticating', 'preparing']);
  });

  afterAll(async () => {
    for (const h of hosts) await h.dispose();
    await sshd?.stop();
    if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
  });

  const remoteDir = async (): Promise<string> => {
    const dir = `${sshd.home}/t-${randomBytes(4).toString('hex')}`;
    const r = await output(host.spawn(['mkdir', '-p', dir], { env: {} }));
    expect(r.code).toBe(0);
    return dir;
  };

  it('runs a process on the host as the remote user, in the remote home, with the host own PATH', async () => {
    expect(host.info).toMatchObject({ user: sshd.user, home: sshd.home, platform: 'linux' });
    const p = host.spawn(['sh', '-c', 'id -un; pwd; echo "$HOME"; echo "$GREETING"'], { env: { ...(process.env as Record<string, string>), GREETING: 'hello there' } });
    await p.started;
    expect(p.pid).toBeGreaterThan(0);
    const r = await output(p);
    expect(r.out.split('\n')).toEqual([sshd.user, sshd.home, sshd.home, 'hello there', '']);
    expect(r.code).toBe(0);
  });

  it('pipes stdin to a process on the host and reports a failed start plainly', async () => {
    const cat = host.spawn(['cat'], { env: {} });
    cat.stdin.write('line one\n');
    cat.stdin.end('line two\n');
    expect((await output(cat)).out).toBe('line one\nline two\n');

    const missing = host.spawn(['no-such-command-here'], { env: {} });
    await expect(missing.started).rejects.toThrow(/ENOENT/);
    expect((await missing.exited).errorCode).toBe('ENOENT');
  });

  it('confines file access on the host: read and write inside, a symlink out and a FIFO refused', async () => {
    const dir = await remoteDir();
    const files = await host.files([dir]);
    expect(files.roots).toEqual([dir]);
    await files.writeFile(`${dir}/notes.txt`, 'written from here\n');
    expect((await files.readFile(`${dir}/notes.txt`, { maxBytes: 1024 })).data.toString()).toBe('written from here\n');
    // The file is on the host, owned by the remote user.
    expect((await output(host.spawn(['stat', '-c', '%U', `${dir}/notes.txt`], { env: {} }))).out.trim()).toBe(sshd.user);

    await output(host.spawn(['sh', '-c', `ln -s /etc/passwd ${dir}/out && mkfifo ${dir}/fifo`], { env: {} }));
    const outside = await files.readFile(`${dir}/out`, { maxBytes: 1024 }).catch((e: unknown) => e);
    expect(outside).toBeInstanceOf(FsRefusal);
    expect(outside).toMatchObject({ reason: 'outside', message: expect.stringMatching(/^refused: .* is outside the session's folders/) });
    const fifo = await files.readFile(`${dir}/fifo`, { maxBytes: 1024 }).catch((e: unknown) => e);
    expect(fifo).toMatchObject({ reason: 'not_regular', message: expect.stringMatching(/^refused: .*fifo is not a regular file/) });
    await expect(files.writeFile('/etc/x', 'no')).rejects.toMatchObject({ reason: 'outside' });
    // A folder swapped for a link after a check is judged again at the moment of access.
    await output(host.spawn(['sh', '-c', `mkdir ${dir}/sub && echo in > ${dir}/sub/f`], { env: {} }));
    expect((await files.readFile(`${dir}/sub/f`, { maxBytes: 64 })).data.toString()).toBe('in\n');
    await output(host.spawn(['sh', '-c', `rm -r ${dir}/sub && ln -s /etc ${dir}/sub`], { env: {} }));
    await expect(files.readFile(`${dir}/sub/passwd`, { maxBytes: 1 << 20 })).rejects.toMatchObject({ reason: 'outside' });
    // @-mentions: regular files and links (a FIFO is not one), no folder behind a link entered.
    expect((await host.listFiles(dir, { maxFiles: 100, maxDepth: 5 })).files.sort()).toEqual(['notes.txt', 'out', 'sub']);
  });

  it('runs git on the host', async () => {
    const dir = await remoteDir();
    expect((await host.git(['init', '-q'], { cwd: dir })).code).toBe(0);
    const files = await host.files([dir]);
    await files.writeFile(`${dir}/a.txt`, 'a\n');
    const status = await host.git(['status', '--porcelain'], { cwd: dir });
    expect(status.stdout.toString()).toBe('?? a.txt\n');
    const top = await host.git(['rev-parse', '--show-toplevel'], { cwd: dir, env: { ...(process.env as Record<string, string>) } });
    expect(top.stdout.toString().trim()).toBe(dir);
  });

  it('opens a real pty on the host: echo, its size, a resize', async () => {
    const pty = host.openPty(['sh'], { cwd: sshd.home, env: { TERM: 'xterm-256color' }, cols: 100, rows: 30 });
    let seen = '';
    pty.onData((d) => (seen += d));
    pty.write('tty; stty size\n');
    await expect.poll(() => seen, { timeout: 15_000 }).toMatch(/\/dev\/pts\/\d+[\s\S]*30 100/);
    expect(seen).toContain('tty; stty size'); // the terminal echoed what was typed
    await expect.poll(() => pty.pid, { timeout: 10_000 }).toBeGreaterThan(0);
    pty.resize(120, 40);
    await new Promise((r) => setTimeout(r, 300));
    pty.write('stty size\n');
    await expect.poll(() => seen, { timeout: 15_000 }).toMatch(/40 120/);
    pty.write('exit 3\n');
    expect(await pty.exited).toEqual({ exitCode: 3, signal: null });
  });

  it('watches a folder on the host', async () => {
    const dir = await remoteDir();
    const events: string[] = [];
    const w = await host.watch(dir, (ev) => {
      if (ev.kind === 'changes') for (const c of ev.changes) events.push(`${c.kind} ${c.path}`);
    });
    const files = await host.files([dir]);
    await files.writeFile(`${dir}/w.txt`, 'x');
    await expect.poll(() => events.some((e) => e.endsWith(`${dir}/w.txt`)), { timeout: 15_000 }).toBe(true);
    await w.dispose();
  });

  it('keeps a process running through a killed ControlMaster and delivers its output in order, once', async () => {
    const h = make();
    expect((await h.connect()).ok).toBe(true);
    const states: string[] = [];
    h.onState((s) => states.push(s.kind));
    const p = h.spawn(['sh', '-c', 'i=1; while [ $i -le 80 ]; do echo "line $i"; i=$((i+1)); sleep 0.05; done'], { env: {} });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    await expect.poll(() => out.includes('line 5\n'), { timeout: 20_000 }).toBe(true);
    const master = await h.masterPid();
    expect(master).toBeGreaterThan(0);
    const dropped = Date.now();
    let reconnectedIn = 0;
    h.onState((s) => {
      if (s.kind === 'connected') reconnectedIn = Date.now() - dropped;
    });
    process.kill(master!, 'SIGKILL');
    const exit = await p.closed;
    expect(exit.code).toBe(0);
    expect(out).toBe(Array.from({ length: 80 }, (_, i) => `line ${i + 1}\n`).join(''));
    expect(states).toContain('reconnecting');
    expect(reconnectedIn).toBeGreaterThan(0);
    expect(h.state.kind).toBe('connected');
    const again = await h.masterPid();
    expect(again).toBeGreaterThan(0);
    expect(again).not.toBe(master);
  });

  it('applies input typed while the connection is down once, after the reconnect', async () => {
    const h = make();
    expect((await h.connect()).ok).toBe(true);
    const cat = h.spawn(['cat'], { env: {} });
    let out = '';
    cat.stdout.on('data', (b: Buffer) => (out += b.toString()));
    cat.stdin.write('before\n');
    await expect.poll(() => out, { timeout: 15_000 }).toBe('before\n');
    process.kill((await h.masterPid())!, 'SIGKILL');
    await expect.poll(() => h.state.kind, { timeout: 15_000 }).not.toBe('connected');
    cat.stdin.write('during\n');
    cat.stdin.end('last\n');
    expect((await cat.closed).code).toBe(0);
    expect(out).toBe('before\nduring\nlast\n');
  });

  it('stops the host processes when it is disposed (quitting)', async () => {
    const h = make();
    expect((await h.connect()).ok).toBe(true);
    const p = h.spawn(['sleep', '300'], { env: {} });
    await p.started;
    const pid = p.pid!;
    expect(groupRunning(pid)).toBe(true);
    await h.dispose();
    await expect.poll(() => groupRunning(pid), { timeout: 10_000 }).toBe(false);
    expect(h.state.kind).toBe('closed');
  });

  it('says plainly when node is missing on the host', async () => {
    const r = await make({ nodeCommand: '/opt/no-node-here/bin/node' }).connect();
    expect(r).toMatchObject({ ok: false, failure: { reason: 'node_missing', message: expect.stringMatching(/^node is missing on sbtest/) } });
  });

  it('says plainly when node, or git, is not on the PATH of the host user', async () => {
    const noNode = await make({ destination: sshd.noNodeAlias }).connect();
    expect(noNode).toMatchObject({ ok: false, failure: { reason: 'node_missing', message: expect.stringMatching(/^node is missing on sbnonode: "node" is not found there/) } });
    const noGit = await make({ destination: sshd.noGitAlias }).connect();
    expect(noGit).toMatchObject({ ok: false, failure: { reason: 'git_missing', message: expect.stringMatching(/^git is missing on sbnogit/) } });
  });

  it('refuses an authentication the host does not accept', async () => {
    const config = await sshd.writeConfig('ssh_config_stranger', [
      'Host stranger',
      '  HostName 127.0.0.1',
      `  Port ${sshd.port}`,
      `  User ${sshd.user}`,
      `  IdentityFile ${sshd.strangerIdentityFile}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${sshd.knownHostsFile}`,
      '  IdentityAgent none',
    ]);
    const r = await make({ destination: 'stranger', configFile: config }).connect();
    expect(r).toMatchObject({ ok: false, failure: { reason: 'auth', message: expect.stringMatching(/refused the authentication \(.*Permission denied/) } });
  });

  it('fails on an unreachable host within 15 s, saying so', async () => {
    const started = Date.now();
    const r = await make({ destination: `${sshd.user}@127.0.0.1`, port: 1, configFile: '/dev/null' }).connect();
    expect(r).toMatchObject({ ok: false, failure: { reason: 'unreachable', message: expect.stringMatching(/cannot be reached: .*Connection refused/) } });
    // A host that never answers (TEST-NET-1): still an answer within 15 s, never a hang.
    const r2 = await make({ destination: '192.0.2.1', configFile: '/dev/null' }).connect();
    expect(r2).toMatchObject({ ok: false, failure: { reason: 'unreachable' } });
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 40_000);
});

describe.skipIf(skip !== null)('SshHost host keys on a real sshd', () => {
  let sshd: Sshd;
  let runtimeDir: string;
  const hosts: SshHost[] = [];
  const make = (): SshHost => {
    const h = new SshHost({ id: `k-${randomBytes(3).toString('hex')}`, destination: sshd.alias, configFile: sshd.configFile, runtimeDir, instance: randomBytes(6).toString('hex') });
    hosts.push(h);
    return h;
  };

  beforeAll(async () => {
    sshd = await startSshd();
    runtimeDir = await mkdtemp(join(tmpdir(), 'sbrt-'));
  });
  afterAll(async () => {
    for (const h of hosts) await h.dispose();
    await sshd?.stop();
    if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
  });

  it('refuses a changed host key with OpenSSH own warning', async () => {
    await sshd.setKnownHosts('wrong');
    const r = await make().connect();
    expect(r).toMatchObject({ ok: false, failure: { reason: 'host_key_changed', message: expect.stringContaining('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!') } });
  });

  it('shows an unknown host key with its fingerprint, and connects once the user accepts it', async () => {
    await sshd.setKnownHosts('empty');
    const h = make();
    const r = await h.connect();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.reason).toBe('host_key_unknown');
    const { spawnSync } = await import('node:child_process');
    const expected = spawnSync('ssh-keygen', ['-l', '-f', sshd.hostKeyPub], { encoding: 'utf8' }).stdout.split(' ')[1]!;
    expect(expected).toMatch(/^SHA256:/);
    expect(r.failure.hostKey!.fingerprints.join('\n')).toContain(expected);
    expect(r.failure.message).toContain(expected);
    expect(r.failure.hostKey!.host).toBe(`[127.0.0.1]:${sshd.port}`);
    await h.acceptHostKey(r.failure.hostKey!);
    expect((await h.connect()).ok).toBe(true);
  });
});

describe.skipIf(skip !== null)('SshHost when the host stays unreachable', () => {
  let sshd: Sshd;
  let runtimeDir: string;
  let host: SshHost;

  beforeAll(async () => {
    sshd = await startSshd();
    runtimeDir = await mkdtemp(join(tmpdir(), 'sbrt-'));
  });
  afterAll(async () => {
    await host?.dispose();
    await sshd?.stop();
    if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
  });

  it('keeps reconnecting, saying why, and the host stops its processes once the grace period is over', async () => {
    host = new SshHost({ id: 'grace', destination: sshd.alias, configFile: sshd.configFile, runtimeDir, instance: randomBytes(6).toString('hex'), graceMs: 1500 });
    expect((await host.connect()).ok).toBe(true);
    const p = host.spawn(['sleep', '300'], { env: {} });
    await p.started;
    const pid = p.pid!;
    await sshd.stopListening();
    process.kill((await host.masterPid())!, 'SIGKILL');
    await expect.poll(() => (host.state.kind === 'reconnecting' ? host.state.lastError : null), { timeout: 30_000 }).toMatch(/cannot be reached: .*Connection refused/);
    // No client for the grace period: the helper's daemon stops what it ran.
    await expect.poll(() => groupRunning(pid), { timeout: 20_000 }).toBe(false);
    expect(host.state.kind).toBe('reconnecting');
    // Quitting while it waits: the process is reported gone, nothing hangs.
    await host.dispose();
    expect((await p.closed).error).toMatch(/was closed/);
    expect(host.state.kind).toBe('closed');
  }, 60_000);
});
