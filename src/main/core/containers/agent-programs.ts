/**
 * The agent's own program files (a custom agent's script or program named by an absolute path, a binary agent's
 * install), mounted read-only into the session's container at their own paths when it is made, so that its start
 * spends no engine call copying them in.
 *
 * What is mounted is never the user's file itself: a hard link to it (a copy when a link cannot be made) in
 * Switchboard's private scratch folder, one file per program. Nothing else of the host is reached that way, and
 * the mount's source stays there when the program is moved or deleted (the engine refuses to start a container
 * whose mount source is gone). Before each `up` the links are made again from the programs as they are then, so
 * a container started again runs the program as it is now. A program that cannot be linked (not a regular file,
 * a link, too large, absent) is not mounted: it is copied in at the start as before (session-container-host.ts).
 */
import path from 'node:path';
import type { Host } from '../host/host';
import { runOnHost } from './run';
import type { ProgramMount } from './fence';

/** Largest program mounted (a bundled agent script, a static binary). */
export const MAX_PROGRAM_BYTES = 256 * 1024 * 1024;

/** At most this many program files per session (the command and its first argument). */
const MAX_PROGRAMS = 2;

/** The absolute files an agent's command names (the program, and the script it is given), as its container's start would copy them. */
export function programCandidates(agent: { command: string; args: readonly string[] } | null): string[] {
  if (!agent) return [];
  return [...new Set([agent.command, agent.args[0]].filter((f): f is string => typeof f === 'string' && isPlainPath(f)))];
}

/** The files not in the session's mounted folders (those are there already). */
export function outsideFolders(files: readonly string[], folders: readonly string[]): string[] {
  return files.filter((f) => !folders.some((m) => f === m || f.startsWith(`${m}/`)));
}

/** An absolute, normalised path a mount can name (no comma, quote or control character: fence.ts). */
function isPlainPath(f: string): boolean {
  return f.length <= 4096 && path.posix.isAbsolute(f) && path.posix.normalize(f) === f && f !== '/' && !/[,"'\\]/.test(f) && ![...f].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

/**
 * Each link (or copy) made or kept fresh, in one process on the host: `"$dir/<i>"` for the i-th program.
 * A link (same inode) is current; a copy of its size not older than its program is too; else a new one
 * replaces it (made beside it and renamed over it: a link's content, which is the user's file, is never
 * written). A copy keeps the program's mode (as the engine's copy did): the container's user reads what it could. A program
 * not linkable now keeps the link it had. Prints the indices that have a link after.
 */
const LINK_SCRIPT = `dir=$1; max=$2; shift 2; mkdir -p -m 700 "$dir" || exit 1; i=0
for f in "$@"; do
  d="$dir/$i"
  if [ -f "$f" ] && [ ! -L "$f" ] && s=$(wc -c < "$f") && [ "$s" -le "$max" ]; then
    if ! [ "$f" -ef "$d" ] && ! { [ -f "$d" ] && ! [ "$f" -nt "$d" ] && [ "$(wc -c < "$d")" = "$s" ]; }; then
      rm -f "$d.new"; { ln "$f" "$d.new" 2>/dev/null || cp -p "$f" "$d.new" 2>/dev/null || cp "$f" "$d.new"; } && mv -f "$d.new" "$d" 2>/dev/null || rm -f "$d.new"
    fi
  fi
  [ -f "$d" ] && [ ! -L "$d" ] && echo "$i"
  i=$((i + 1))
done`;

/**
 * The read-only mounts of a session's programs (`targets`, their paths on the host that runs the container),
 * each from its link in `dir`, made or refreshed now. One process on that host; none when there is nothing to link.
 */
export async function linkPrograms(host: Host, dir: string, targets: readonly string[]): Promise<ProgramMount[]> {
  const files = targets.filter(isPlainPath).slice(0, MAX_PROGRAMS);
  if (files.length === 0) return [];
  const r = await runOnHost(host, ['/bin/sh', '-c', LINK_SCRIPT, 'sh', dir, String(MAX_PROGRAM_BYTES), ...files], { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 120_000, maxStdout: 4096 });
  const linked = new Set(r.stdout.split('\n').map((l) => l.trim()));
  return files.flatMap((target, i) => (linked.has(String(i)) ? [{ source: path.posix.join(dir, String(i)), target }] : []));
}
