import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * Agents and terminals lead their own process groups, so they would outlive a Switchboard that is killed
 * outright (SIGKILL, a crash): nothing runs in a dead process to stop them. A tiny watchdog shell holds a
 * pipe from this process; the kernel closes the pipe when this process dies, however it dies, and the
 * watchdog then ends every group still registered: SIGHUP (as a closed terminal window does: a shell passes
 * it on to its background jobs) and SIGTERM, then SIGKILL 0.4 s later.
 *
 * A POSIX shell rather than Node: under Electron, process.execPath is the app, which cannot run as Node
 * (the RunAsNode fuse is off). The watchdog leads its own group and ignores the terminal's signals, so a
 * Ctrl-C or a closed terminal that ends Switchboard does not end the watchdog first.
 */
const WATCHDOG = `
trap '' INT HUP TERM QUIT
groups=' '
while IFS= read -r line; do
  case "$line" in
    +[0-9]*) groups="$groups\${line#+} " ;;
    -[0-9]*)
      id=\${line#-}
      case "$groups" in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
set -- $groups
[ $# -eq 0 ] && exit 0
for g in "$@"; do kill -HUP -"$g" 2>/dev/null; kill -TERM -"$g" 2>/dev/null; done
sleep 0.4
for g in "$@"; do kill -KILL -"$g" 2>/dev/null; done
exit 0
`;

const groups = new Set<number>();
let watchdog: ChildProcess | null = null;

/**
 * Starts the watchdog unless it runs. Called before spawning a terminal as well as on registration: a
 * watchdog forked later would inherit the terminal's pty master (node-pty leaves it open across fork),
 * keeping the terminal from its hangup when Switchboard dies.
 */
export function ensureGroupWatchdog(): void {
  if (watchdog || process.platform === 'win32') return;
  const child = spawn('/bin/sh', ['-c', WATCHDOG], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  watchdog = child;
  child.on('error', (e) => console.error('process-group watchdog:', e.message));
  child.stdin!.on('error', () => undefined);
  child.on('exit', () => {
    // Killed by someone: the next registration starts a fresh one.
    if (watchdog === child) watchdog = null;
  });
  // The watchdog must not keep this process alive.
  child.unref();
  (child.stdin as Socket).unref();
  for (const g of groups) child.stdin!.write(`+${g}\n`);
}

/**
 * Registers a process group (by its leader's pid) to be ended if this process dies without ending it.
 * Returns the unregistration, for when the group is gone. A no-op on Windows (no process groups).
 */
export function guardProcessGroup(pgid: number | undefined): () => void {
  if (process.platform === 'win32' || !pgid || pgid <= 1 || groups.has(pgid)) return () => undefined;
  groups.add(pgid);
  // A fresh watchdog is sent every registered group as it starts.
  if (watchdog) watchdog.stdin!.write(`+${pgid}\n`);
  else ensureGroupWatchdog();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    groups.delete(pgid);
    watchdog?.stdin!.write(`-${pgid}\n`);
  };
}

