import { homedir } from 'node:os';
import { IpcFailure } from '../../../shared/contract';
import { hostLabel, sharesThisMachine } from '../../../shared/contract/hosts';
import type { EventBus } from '../base/event-bus';
import type { Router } from '../base/router';
import { folderProblem } from '../host/folder-check';
import type { Hosts } from '../host/hosts';
import { loginShellEnv, userShell } from '../platform/shell-env';
import type { PtyHost } from './pty-host';

/** Shell tabs: a login shell per tab, streamed to the renderer. */
export function registerShellService(router: Router, bus: EventBus, ptys: PtyHost, hosts: Pick<Hosts, 'ensure'>): void {
  const shells = new Set<string>();

  const shellPty = (id: string) => {
    const proc = shells.has(id) ? ptys.get(id) : undefined;
    if (!proc) throw new IpcFailure('not_found', `no shell terminal ${id}`);
    return proc;
  };

  router.handle('pty.createShell', async ({ cols, rows, cwd, hostId }) => {
    const local = sharesThisMachine(hostId);
    const host = await hosts.ensure(hostId).catch((e: Error) => {
      throw new IpcFailure('unavailable', `${hostLabel(hostId)} cannot be reached: ${e.message}`);
    });
    // A remote shell starts in the host user's home unless given a folder ('/' then only until the shell's cd).
    const dir = cwd ?? (local ? homedir() : '/');
    if (local || cwd !== undefined) {
      const problem = await folderProblem(host, dir);
      if (problem) throw new IpcFailure('not_found', problem);
    }
    const shell = local ? userShell() : '/bin/sh';
    const args = !local ? ['-c', `${cwd === undefined ? 'cd && ' : ''}exec "\${SHELL:-/bin/sh}" -l`] : process.platform === 'win32' ? [] : ['-l'];
    const env = { ...(local ? await loginShellEnv() : {}), TERM: 'xterm-256color', COLORTERM: 'truecolor' };
    const proc = ptys.spawn(
      { host, command: shell, args, cwd: dir, env, cols, rows },
      {
        onData: (id, data) => bus.emit('pty.data', { id, data }),
        onExit: (id, exit) => bus.emit('pty.exit', { id, ...exit }),
      },
    );
    shells.add(proc.id);
    return { id: proc.id, shell, cwd: dir };
  });

  router.handle('pty.write', ({ id, data }) => {
    shellPty(id).write(data);
    return {};
  });

  router.handle('pty.resize', ({ id, cols, rows }) => {
    shellPty(id).resize(cols, rows);
    return {};
  });

  router.handle('pty.snapshot', ({ id }) => {
    const snap = shellPty(id).snapshot();
    return { data: snap.output, exited: snap.exit !== null };
  });

  router.handle('pty.kill', async ({ id }) => {
    shellPty(id);
    shells.delete(id);
    await ptys.release(id);
    return {};
  });
}
