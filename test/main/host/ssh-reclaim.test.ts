/**
 * Switchboard killed while a process runs on an SSH host (a real sshd, a real Switchboard process killed with
 * SIGKILL): the helper's daemon outlives it, and the next Switchboard with the same instance takes the process
 * back, with everything it wrote meanwhile.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshHost } from '../../../src/main/core/host/ssh/ssh-host';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';

const skip = sshdSkipReason();
const repoRoot = resolve(__dirname, '../../..');

describe.skipIf(skip !== null)('a process on a host after Switchboard was killed', () => {
  let sshd: Sshd;
  let runtimeDir: string;
  const hosts: SshHost[] = [];

  beforeAll(async () => {
    sshd = await startSshd();
    runtimeDir = await mkdtemp(join(tmpdir(), 'sbrc-'));
  });
  afterAll(async () => {
    for (const h of hosts) await h.dispose();
    await sshd?.stop();
    if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
  });

  it('is taken back by the next Switchboard, with what it wrote while none was connected', async () => {
    const instance = randomBytes(6).toString('hex');
    // An agent that answers at length after Switchboard is gone.
    // (Its second's pause is the agent's thinking: the words come whether or not a Switchboard is connected.)
    const script = 'read x; echo "got $x"; sleep 1; i=0; while [ $i -lt 400 ]; do echo "word$i"; i=$((i+1)); done; read y; echo "then $y"';
    const argv = ['sh', '-c', script];
    const first = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/fixtures/ssh-connect/spawn-and-wait.ts'), sshd.configFile, sshd.alias, runtimeDir, instance, 'question', ...argv], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let said = '';
    first.stdout.on('data', (b: Buffer) => (said += b.toString('utf8')));
    await expect.poll(() => said, { timeout: 30_000 }).toMatch(/STARTED \d+/);
    const pid = Number(/STARTED (\d+)/.exec(said)![1]);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    // Switchboard again, the same instance (the same machine and settings).
    const host = new SshHost({ id: `ssh:${sshd.alias}`, destination: sshd.alias, configFile: sshd.configFile, runtimeDir, instance });
    hosts.push(host);
    expect((await host.connect()).ok).toBe(true);
    const proc = host.spawn(argv, { env: {} });
    let out = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    await proc.started;
    // The very process, not a new one: it goes on where it was (its second line of input).
    expect(proc.pid).toBe(pid);
    proc.stdin.write('go on\n');
    const exit = await proc.closed;
    expect(exit.code).toBe(0);
    // What the killed Switchboard never acknowledged comes first ("got question", if it was killed that fast).
    const lines = out.trim().split('\n').filter((l) => l !== 'got question');
    expect(lines).toEqual([...Array.from({ length: 400 }, (_, i) => `word${i}`), 'then go on']);
    // A second spawn of the same command is a new process.
    const again = host.spawn(['sh', '-c', 'echo fresh'], { env: {} });
    let fresh = '';
    again.stdout.on('data', (b: Buffer) => (fresh += b.toString('utf8')));
    await again.closed;
    expect(fresh).toBe('fresh\n');
  }, 90_000);

  it('a process whose helper was killed on the host is reported so, not as a connection down past its grace period', async () => {
    const host = new SshHost({ id: 'killed-helper', destination: sshd.alias, configFile: sshd.configFile, runtimeDir, instance: randomBytes(6).toString('hex') });
    hosts.push(host);
    expect((await host.connect()).ok).toBe(true);
    // Its parent is the helper's daemon.
    const proc = host.spawn(['sh', '-c', 'echo $PPID; exec sleep 300'], { env: {} });
    let out = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    await expect.poll(() => out, { timeout: 20_000 }).toMatch(/^\d+\n/);
    const daemon = Number(out.trim());
    const sleeper = proc.pid!;
    try {
      process.kill(daemon, 'SIGKILL');
      const exit = await proc.closed;
      expect(exit.error).toMatch(/killed or crashed/);
      expect(exit.error).not.toMatch(/grace period/);
    } finally {
      // The daemon that would have stopped it is gone.
      try {
        process.kill(-sleeper, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }, 90_000);
});
