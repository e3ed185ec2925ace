import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { startAppServer, tempDir, type AppServer } from '../../support/app-server';
import { connectContract } from '../../support/contract-client';
import { descendants, processes } from '../../support/processes';

/**
 * A Switchboard killed outright (SIGKILL, a crash) runs no cleanup of its own: its agents and terminals,
 * each leading its own process group, must still not outlive it. The built server with a stubborn agent
 * (ignores SIGTERM, keeps a grandchild) and a shell tab running a command gets SIGKILL; within a second
 * every process group it started is gone.
 */

/** The process groups of every descendant of `root`, but its own. */
function descendantGroups(root: number): Set<number> {
  const all = processes();
  const found = descendants(root, all);
  const own = all.find((p) => p.pid === root)?.pgrp;
  return new Set(all.filter((p) => found.has(p.pid) && p.pgrp !== own).map((p) => p.pgrp));
}

/**
 * Whether anything in the group still runs. A member that has died but not been reaped yet (a zombie,
 * reparented to a pid 1 that reaps lazily, as in some containers) still answers kill(-pgid, 0): it counts
 * as gone.
 */
const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  return processes().some((p) => p.pgrp === pgid && p.state !== 'Z');
};

const isSleep300 = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\u0000300');
  } catch {
    return false;
  }
};

let app: AppServer | null = null;
let groups = new Set<number>();
const scratch: string[] = [];
afterAll(async () => {
  await app?.stop();
  // Whatever the outcome, leave nothing behind on the machine.
  for (const g of groups) if (groupAlive(g)) process.kill(-g, 'SIGKILL');
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('a killed Switchboard', () => {
  it('leaves no agent and no terminal running a second after SIGKILL', async () => {
    const work = realpathSync(tempDir('sb-kill-work-'));
    scratch.push(work);
    app = await startAppServer();
    const c = await connectContract(app);
    const { command, args } = scenarioAgentCommand();
    const agent = (await c.call('agents.addCustom', { name: 'Stubborn', command, args, env: { SCENARIO_STUBBORN: '1' }, cwd: work })) as { id: string };
    await c.call('sessions.create', { agentId: agent.id, cwd: work, additionalDirectories: [] });
    const shell = (await c.call('pty.createShell', { cols: 80, rows: 24, cwd: work })) as { id: string };
    // A background job (its own group under job control) and a foreground one.
    await c.call('pty.write', { id: shell.id, data: 'sleep 300 & sleep 300\r' });

    const serverPid = app.proc.pid!;
    // Wait until the agent's grandchild and the shell's command are there.
    const started = Date.now();
    const sleeps = () => processes().filter((p) => isSleep300(p.pid) && descendantGroups(serverPid).has(p.pgrp)).length;
    while (sleeps() < 3 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 100));
    expect(sleeps()).toBe(3);
    groups = descendantGroups(serverPid);
    // The agent's group, the shell's, the command's (job control), the watchdog's.
    expect(groups.size).toBeGreaterThanOrEqual(3);
    c.close();

    const killedAt = Date.now();
    app.proc.kill('SIGKILL');
    let alive = [...groups].filter(groupAlive);
    while (alive.length > 0 && Date.now() - killedAt < 1000) {
      await new Promise((r) => setTimeout(r, 20));
      alive = alive.filter(groupAlive);
    }
    expect(alive, `process groups still running 1 s after SIGKILL`).toEqual([]);
  }, 60_000);
});
