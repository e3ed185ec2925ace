import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLoginShellEnv, SHELL_KILL_GRACE_MS } from '../../../src/main/core/platform/shell-env';
import { groupRunning } from '../../support/processes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await sleep(20);
  return ok();
}

describe.runIf(process.platform === 'linux')("the login shell's environment", () => {
  let dir = '';
  let shell: string | undefined;
  let started: number[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-shell-env-'));
    shell = process.env.SHELL;
    started = [];
  });
  afterEach(() => {
    if (shell === undefined) delete process.env.SHELL;
    else process.env.SHELL = shell;
    for (const pgid of started) if (groupRunning(pgid)) process.kill(-pgid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** The user's shell (SHELL) is a script here: it runs `profile`, then the command it is given (`-ilc <command>`), as bash would. */
  function userShell(profile: string): void {
    const path = join(dir, 'shell');
    writeFileSync(path, `#!/bin/sh\necho $$ > '${dir}/pid'\n${profile}\nexec /bin/sh -c "$2"\n`);
    chmodSync(path, 0o755);
    process.env.SHELL = path;
  }
  const shellPid = (): number => {
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    started.push(pid);
    return pid;
  };

  it("reads what the profile sets, keeping this process's PATH", async () => {
    userShell(`export FROM_PROFILE='a b'\nexport PATH="/opt/from-profile/bin:$PATH"`);
    const env = await readLoginShellEnv(10_000);
    expect(env.FROM_PROFILE).toBe('a b');
    const path = env.PATH!.split(':');
    expect(path).toContain('/opt/from-profile/bin');
    for (const p of process.env.PATH!.split(':')) expect(path).toContain(p);
  });

  it('a profile that hangs: the environment is this process\'s, and the shell is hung up on, so its traps clean up (a lock file)', async () => {
    const lock = join(dir, 'lock');
    userShell(`: > '${lock}'\ntrap "rm -f '${lock}'; exit 129" HUP\nexport FROM_PROFILE=1\nsleep 60 &\nwait`);
    const env = await readLoginShellEnv(500);
    expect(env.FROM_PROFILE).toBeUndefined();
    expect(env.PATH).toBe(process.env.PATH);
    const pid = shellPid();
    // Before the hangup the lock was there; the profile's own trap removed it, before any SIGKILL was due.
    expect(await until(() => !existsSync(lock), SHELL_KILL_GRACE_MS - 200)).toBe(true);
    // The whole group is gone: the shell and what it started.
    expect(await until(() => !groupRunning(pid), SHELL_KILL_GRACE_MS + 2000)).toBe(true);
  });

  it('a profile deaf to the hangup is killed a moment later, with what it started', async () => {
    userShell(`trap '' HUP\nsleep 60 &\nwait`);
    await readLoginShellEnv(500);
    const pid = shellPid();
    await sleep(SHELL_KILL_GRACE_MS / 2);
    expect(groupRunning(pid)).toBe(true);
    expect(await until(() => !groupRunning(pid), SHELL_KILL_GRACE_MS + 2000)).toBe(true);
  });
});
