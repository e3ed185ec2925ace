import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/app-server';

/** Members of the group that still run (a zombie not reaped yet by a lazy pid 1 does not). */
function running(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  return readdirSync('/proc').some((name) => {
    if (!/^\d+$/.test(name)) return false;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return f[0] !== 'Z' && Number(f[2]) === pgid;
    } catch {
      return false;
    }
  });
}

let groups: number[] = [];
afterAll(() => {
  for (const g of groups) if (running(g)) process.kill(-g, 'SIGKILL');
});

describe.runIf(process.platform === 'linux')('process-group watchdog', () => {
  it('ends the guarded groups of a process killed outright (even ones deaf to SIGHUP and SIGTERM), and only those', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/main/platform/watchdog-child.ts')], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    groups = await new Promise<number[]>((resolve) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
      });
    });
    expect(groups.every(running)).toBe(true);
    const killedAt = Date.now();
    child.kill('SIGKILL');
    const [guarded1, unguarded, guarded2] = groups as [number, number, number];
    while ((running(guarded1) || running(guarded2)) && Date.now() - killedAt < 1000) await new Promise((r) => setTimeout(r, 20));
    expect([running(guarded1), running(guarded2)]).toEqual([false, false]);
    // Unregistered: the watchdog leaves it alone (its pid may be someone else's by now).
    expect(running(unguarded)).toBe(true);
  });
});
