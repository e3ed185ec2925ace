import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * Agents and terminals lead their own process groups, so they would outlive a Switchboard that is killed
 * outright (SIGKILL, a crash): nothing runs in a dead process to stop them. A tiny watchdog shell holds a
 * pipe from this process; the kernel closes the pipe when this process dies, however it dies, and the
 * watchdog then ends every group still registered: SIGTERM to agents and the like, SIGHUP to terminals
 * (as a closed terminal window does: the shell passes it on to its background jobs), then SIGKILL to all
 * 0.4 s later.
 *
 * A POSIX shell rather than Node: under Electron, process.execPath is the app, which cannot run as Node
 * (the RunAsNode fuse is off). The watchdog leads its own session and ignores the terminal's signals, so a
 * Ctrl-C or a closed terminal that ends Switchboard does not end the watchdog first.
 *
 * Lines on its stdin: `+T<pgid>` (SIGTERM first) or `+H<pgid>` (SIGHUP first) registers, `-<pgid>` forgets.
 */
const WATCHDOG = `
trap '' INT HUP TERM QUIT
term=' '
hup=' '
while IFS= read -r line; do
  case "$line" in
    +T[0-9]*) term="$term\${line#+T} " ;;
    +H[0-9]*) hup="$hup\${line#+H} " ;;
    -[0-9]*)
      id=\${line#-}
      case "$term" in *" $id "*) term="\${term%% $id *} \${term#* $id }" ;; esac
      case "$hup" in *" $id "*) hup="\${hup%% $id *} \${hup#* $id }" ;; esac ;;
  esac
done
set -- $term $hup
[ $# -eq 0 ] && exit 0
for g in $term; do kill -TERM -"$g" 2>/dev/null; done
for g in $hup; do kill -HUP -"$g" 2>/dev/null; done
sleep 0.4
for g in "$@"; do kill -KILL -"$g" 2>/dev/null; done
# A terminal's shell leads its own session: jobs it put in groups of their own are ended with the session,
# even when the shell had no time to pass the hangup on before it was killed.
for g in $hup; do pkill -KILL -s "$g" 2>/dev/null; done
exit 0
`;

/** Registered groups, and the signal each gets first. */
const groups = new Map<number, 'T' | 'H'>();
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
  for (const [g, first] of groups) child.stdin!.write(`+${first}${g}\n`);
}

/**
 * Registers a process group (by its leader's pid) to be ended if this process dies without ending it:
 * `hangup` for a terminal's session leader (SIGHUP first), otherwise SIGTERM first. Returns the
 * unregistration, for when the group is gone. A no-op on Windows (no process groups).
 */
export function guardProcessGroup(pgid: number | undefined, options: { hangup?: boolean } = {}): () => void {
  if (process.platform === 'win32' || !pgid || pgid <= 1 || groups.has(pgid)) return () => undefined;
  const first = options.hangup ? 'H' : 'T';
  groups.set(pgid, first);
  // A fresh watchdog is sent every registered group as it starts.
  if (watchdog) watchdog.stdin!.write(`+${first}${pgid}\n`);
  else ensureGroupWatchdog();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    groups.delete(pgid);
    watchdog?.stdin!.write(`-${pgid}\n`);
  };
}
