import { readdirSync, readFileSync } from 'node:fs';

/**
 * The fields of a /proc/<pid>/stat text after the command name (which may contain spaces and parentheses):
 * field n of proc(5) is at [n - 3], so [0] is the state, [2] the process group, [3] the session.
 */
export function procStatFields(text: string): string[] | null {
  const close = text.lastIndexOf(')');
  return close < 0 ? null : text.slice(close + 2).split(' ');
}

/** How many live processes (zombies aside) are in session `sid` (Linux; elsewhere 0). */
export function sessionMembers(sid: number): number {
  if (process.platform !== 'linux') return 0;
  let n = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const f = procStatFields(readFileSync(`/proc/${name}/stat`, 'latin1'));
      if (f && f[0] !== 'Z' && Number(f[3]) === sid) n++;
    } catch {
      /* gone */
    }
  }
  return n;
}
