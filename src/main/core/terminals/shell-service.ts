import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { IpcFailure } from '../../../shared/contract';
import type { EventBus } from '../base/event-bus';
import type { Router } from '../base/router';
import { loginShellEnv, userShell } from '../platform/shell-env';
import type { PtyHost } from './pty-host';

/** Shell tabs: a login shell per tab, streamed to the renderer. */
export function registerShellService(router: Router, bus: EventBus, ptys: PtyHost): void {
  const shells = new Set<string>();

  const shellPty = (id: string) => {
    const proc = shells.has(id) ? ptys.get(id) : undefined;
    if (!proc) throw new IpcFailure('not_found', `no shell terminal ${id}`);
    return proc;
  };

  router.handle('pty.createShell', async ({ cols, rows, cwd }) => {
    const dir = cwd ?? homedir();
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new IpcFailure('not_found', `no such folder: ${dir}`);
    const shell = userShell();
    const env = { ...(await loginShellEnv()), TERM: 'xterm-256color', COLORTERM: 'truecolor' };
    const proc = ptys.spawn(
      { command: shell, args: process.platform === 'win32' ? [] : ['-l'], cwd: dir, env, cols, rows },
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
