import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/app-server';
import { groupRunning } from '../../support/processes';

let groups: number[] = [];
const dir = mkdtempSync(join(tmpdir(), 'sb-watchdog-'));
afterAll(() => {
  for (const g of groups) if (groupRunning(g)) process.kill(-g, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('process-group watchdog', () => {
  it('ends the guarded groups of a process killed outright (even ones deaf to SIGHUP and SIGTERM), and only those', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/main/platform/watchdog-child.ts'), dir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    groups = await new Promise<number[]>((resolve) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
      });
    });
    expect(groups.every(groupRunning)).toBe(true);
    const killedAt = Date.now();
    child.kill('SIGKILL');
    const [deaf, unguarded, deafTerminal, agent, terminal] = groups as [number, number, number, number, number];
    const guarded = [deaf, deafTerminal, agent, terminal];
    while (guarded.some(groupRunning) && Date.now() - killedAt < 1000) await new Promise((r) => setTimeout(r, 20));
    expect(guarded.filter(groupRunning)).toEqual([]);
    // An agent is asked to stop (it may clean up); a terminal is hung up, as when its window closes.
    expect(readFileSync(join(dir, 'agent'), 'utf8').trim()).toBe('TERM');
    expect(readFileSync(join(dir, 'terminal'), 'utf8').trim()).toBe('HUP');
    // Unregistered: the watchdog leaves it alone (its pid may be someone else's by now).
    expect(groupRunning(unguarded)).toBe(true);
  });
});
