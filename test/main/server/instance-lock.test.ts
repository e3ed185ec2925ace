import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../../src/main/core/platform/instance-lock';
import { repoRoot, startAppServer, tempDir, type AppServer } from '../../support/app-server';

const running: AppServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

/** Runs the built server on `dataDir` to its exit: its code and what it printed. */
function runToExit(dataDir: string, port = 0): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [join(repoRoot, 'out/main/server.js'), '--port', String(port), '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('exit', (code) => resolve({ code, out }));
  });
}

describe('one Switchboard per data folder', () => {
  it('a second server on the same data folder is refused, naming the first; once the first stops, it starts', async () => {
    const dataDir = tempDir('sb-lock-');
    const first = await startAppServer({ dataDir });
    running.push(first);
    const second = await runToExit(dataDir);
    expect(second.code).toBe(2);
    expect(second.out).toContain(`process ${first.proc.pid}`);
    expect(second.out).toContain(`http://127.0.0.1:${first.port}`);
    expect(second.out).not.toContain('"event":"listening"');

    // Its port asked for explicitly changes nothing: still refused, and the first keeps its data.
    expect((await runToExit(dataDir, first.port + 1)).code).toBe(2);

    await first.stop();
    running.length = 0;
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    const again = await startAppServer({ dataDir });
    running.push(again);
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: again.proc.pid, port: again.port, mode: 'browser' });
  });

  it('takes over the lock of a Switchboard that is gone (killed), and refuses for one that is alive', async () => {
    const dataDir = tempDir('sb-lock-');
    const killed = await startAppServer({ dataDir });
    killed.proc.kill('SIGKILL');
    await new Promise((r) => killed.proc.once('exit', r));
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    const next = await startAppServer({ dataDir });
    running.push(next);
    await next.stop();
    running.length = 0;

    // A lock naming a live process (this test's): refused.
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: process.pid, mode: 'electron', port: null, host: hostname(), startedAt: Date.now() }));
    const refused = await runToExit(dataDir);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain('as the desktop app');
  });

  it('says so when the port asked for is taken by another program', async () => {
    const other = await startAppServer();
    running.push(other);
    const dataDir = tempDir('sb-lock-');
    const out = await new Promise<string>((resolve) => {
      const proc = spawn(process.execPath, [join(repoRoot, 'out/main/server.js'), '--port', String(other.port), '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      const onData = (c: Buffer) => {
        text += c.toString();
        if (text.includes('"event":"listening"')) {
          proc.kill('SIGTERM');
          proc.once('exit', () => resolve(text));
        }
      };
      proc.stdout.on('data', onData);
      proc.stderr.on('data', onData);
    });
    expect(out).toContain(`port ${other.port} is in use`);
  });
});
