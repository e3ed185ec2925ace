import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepTail, PtyHost } from '../../../src/main/core/terminals/pty-host';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

describe('keepTail', () => {
  it('keeps the last bytes without splitting a character', () => {
    const text = 'aé€😀'.repeat(10); // 1 + 2 + 3 + 4 bytes per repeat
    for (let limit = 0; limit <= 100; limit++) {
      const { text: kept, truncated } = keepTail(text, limit);
      expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(limit);
      expect(text.endsWith(kept)).toBe(true);
      expect(kept).not.toContain('\uFFFD');
      expect(truncated).toBe(limit < 100);
    }
  });
});

describe('PtyHost', () => {
  it('keeps the whole output of commands that exit right after writing it (drainOnExit)', async () => {
    const host = new PtyHost(new LocalHost());
    // Without draining, Linux loses the unread end of the output in roughly a third of such runs (and a fixed
    // linger after the command is not enough on a busy machine).
    for (let i = 0; i < 15; i++) {
      const proc = host.spawn({
        command: '/bin/sh',
        args: ['-c', 'i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done; echo END; exit 3'],
        cwd: '/',
        env: { PATH: process.env.PATH ?? '' },
        drainOnExit: true,
      });
      expect(await proc.waitForExit()).toEqual({ exitCode: 3, signal: null });
      const output = proc.snapshot().output;
      expect(output.trimEnd().endsWith('END')).toBe(true);
      // Every line, once, and nothing of the drain's own marker.
      expect(output.split('\n').filter((l) => l.startsWith('line ')).length).toBe(2000);
      expect(output).not.toContain('\x1b]7770');
    }
    const killed = host.spawn({ command: '/bin/sh', args: ['-c', 'kill -TERM $$'], cwd: '/', env: { PATH: process.env.PATH ?? '' }, drainOnExit: true });
    expect(await killed.waitForExit()).toEqual({ exitCode: null, signal: 15 });
    await host.dispose();
  });

  it('runs a command in a real pseudo-terminal and reports its output and exit code', async () => {
    const host = new PtyHost(new LocalHost());
    const proc = host.spawn({ command: '/bin/sh', args: ['-c', 'test -t 1 && echo "tty:yes"; exit 7'], cwd: '/', env: { PATH: process.env.PATH ?? '' } });
    const exit = await proc.waitForExit();
    expect(exit).toEqual({ exitCode: 7, signal: null });
    expect(proc.snapshot().output).toContain('tty:yes');
    await host.dispose();
  });

  it('bounds kept output to the limit, cutting from the start', async () => {
    const host = new PtyHost(new LocalHost());
    const proc = host.spawn({
      command: '/bin/sh',
      args: ['-c', 'i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done; echo END'],
      cwd: '/',
      env: { PATH: process.env.PATH ?? '' },
      outputLimit: 1000,
      drainOnExit: true,
    });
    await proc.waitForExit();
    const snap = proc.snapshot();
    expect(Buffer.byteLength(snap.output)).toBeLessThanOrEqual(1000);
    expect(snap.truncated).toBe(true);
    expect(snap.output).toContain('END');
    expect(snap.output).not.toContain('line 0\r');
    await host.dispose();
  });

  it('kills the whole process group on release, leaving no grandchild', async () => {
    const host = new PtyHost(new LocalHost());
    const proc = host.spawn({ command: '/bin/sh', args: ['-c', 'sleep 300 & echo "child:$!"; wait'], cwd: '/', env: { PATH: process.env.PATH ?? '' } });
    let pid = 0;
    for (let i = 0; i < 200 && !pid; i++) {
      const m = /child:(\d+)/.exec(proc.snapshot().output);
      if (m) pid = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 25));
    }
    expect(pid).toBeGreaterThan(0);
    await host.release(proc.id);
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 50));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
    expect(host.size).toBe(0);
  });

  it("closing an interactive shell hangs up on it, as a terminal window does: it saves its history and runs its exit trap", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-pty-hup-'));
    try {
      const host = new PtyHost(new LocalHost());
      const env = { PATH: process.env.PATH ?? '', TERM: 'xterm', HOME: dir, HISTFILE: join(dir, 'history'), PS1: 'ready> ' };
      const shell = host.spawn({ command: '/bin/bash', args: ['--norc', '--noprofile', '-i'], cwd: dir, env });
      const seen = async (text: string) => {
        for (let i = 0; i < 200 && !shell.snapshot().output.includes(text); i++) await new Promise((r) => setTimeout(r, 25));
        expect(shell.snapshot().output).toContain(text);
      };
      await seen('ready> ');
      shell.write(`trap 'echo trapped > "${dir}/exit-trap"' EXIT\r`);
      shell.write('echo typed-$((6*7))\r');
      await seen('typed-42');
      const t0 = Date.now();
      await host.release(shell.id);
      // Ended by the hangup, not by the SIGKILL due 2 s later.
      expect(Date.now() - t0).toBeLessThan(1500);
      expect(shell.snapshot().exit?.signal).not.toBe(9);
      expect(existsSync(join(dir, 'exit-trap'))).toBe(true);
      expect(readFileSync(join(dir, 'history'), 'utf8')).toContain('echo typed-$((6*7))');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
