import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { startAppServer, tempDir, type AppServer } from '../../support/app-server';
import { connectContract } from '../../support/contract-client';
import { descendants, processes } from '../../support/processes';

/**
 * Quitting the app leaves no process behind: the built server (as `npm start` runs it) with a stubborn
 * agent (ignores SIGTERM, keeps a grandchild) and a shell tab running a command gets SIGTERM; afterwards
 * nothing it started is alive.
 */

/**
 * Every descendant of `root`, and every member of their own process groups. A child left in the server's
 * group (a short git run) is in the test runner's group too: that group is not followed.
 */
function tree(root: number): Set<number> {
  const all = processes();
  const found = descendants(root, all);
  const serverGroup = all.find((p) => p.pid === root)?.pgrp;
  const groups = new Set([...found].map((pid) => all.find((p) => p.pid === pid)?.pgrp));
  for (const p of all) if (groups.has(p.pgrp) && p.pgrp !== root && p.pgrp !== serverGroup) found.add(p.pid);
  return found;
}

const alive = (pids: Set<number>) => processes().filter((p) => pids.has(p.pid) && p.state !== 'Z');

let app: AppServer | null = null;
const scratch: string[] = [];
afterAll(async () => {
  await app?.stop();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('quitting', () => {
  it('SIGTERM stops every agent (with its grandchildren) and every terminal', async () => {
    const work = realpathSync(tempDir('sb-quit-work-'));
    scratch.push(work);
    app = await startAppServer();
    const c = await connectContract(app);
    const { command, args } = scenarioAgentCommand();
    const agent = (await c.call('agents.addCustom', { name: 'Stubborn', command, args, env: { SCENARIO_STUBBORN: '1' }, cwd: work })) as { id: string };
    await c.call('sessions.create', { agentId: agent.id, cwd: work, additionalDirectories: [] });
    const shell = (await c.call('pty.createShell', { cols: 80, rows: 24, cwd: work })) as { id: string };
    await c.call('pty.write', { id: shell.id, data: 'sleep 300\r' });

    const serverPid = app.proc.pid!;
    // Wait until the agent's grandchild and the shell's sleep are there.
    const deadline = Date.now() + 20_000;
    let started = tree(serverPid);
    const sleeps = () =>
      [...started].filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\u0000300');
        } catch {
          return false;
        }
      });
    while (sleeps().length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      started = tree(serverPid);
    }
    expect(sleeps().length).toBe(2);
    expect(alive(started).length).toBeGreaterThanOrEqual(4);

    c.close();
    const exited = new Promise<number | null>((r) => app!.proc.once('exit', (code) => r(code)));
    app.proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The server waited for its children before exiting: nothing it started is left but its process-group
    // watchdog, which ends by itself once the server's pipe closes (nothing left to kill).
    const isWatchdog = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes("trap '' INT HUP TERM QUIT");
      } catch {
        return false;
      }
    };
    const cmdline = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        return '';
      }
    };
    // Nothing it started outlives it but for the moment a SIGKILLed process takes to die (seen once in six runs:
    // one pid gone a few milliseconds after the server's exit; which one is still to be found).
    const left = () => alive(started).filter((p) => !isWatchdog(p.pid)).map((p) => `${p.pid} ${cmdline(p.pid)}`);
    const settle = Date.now() + 500;
    while (left().length > 0 && Date.now() < settle) await new Promise((r) => setTimeout(r, 20));
    expect(left()).toEqual([]);
    const until = Date.now() + 2_000;
    while (alive(started).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(alive(started).map((p) => p.pid)).toEqual([]);
  }, 60_000);
});
