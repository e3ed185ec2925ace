import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { Host } from '../host/host';
import { realish, worktreeFolder } from './folder';

/**
 * The machine a worktree is on, and its folders' questions asked there: this machine's folders directly (links
 * resolved, the worktrees folder of the setting), an SSH host's through its helper (the worktrees go beside
 * the repository there: the setting names a folder of this machine).
 */
export interface Machine {
  id: string;
  host: Host;
  local: boolean;
}

/** Whether `path` exists on the machine (an SSH host that cannot say rejects with its reason). */
export async function existsOn(m: Machine, path: string): Promise<boolean> {
  if (m.local) return existsSync(path);
  return (await (await m.host.files(['/'])).resolve(path)).exists;
}

/** `path` with links resolved as far as it exists, on the machine. */
export async function realOn(m: Machine, path: string): Promise<string> {
  if (m.local) return realish(path);
  try {
    return (await (await m.host.files(['/'])).resolve(path)).real;
  } catch {
    return posix.normalize(path);
  }
}

/** Where the repository's worktrees go on the machine. */
export function folderOn(m: Machine, repo: string, setting: string): string {
  return m.local ? worktreeFolder(repo, setting) : posix.join(posix.dirname(repo), `${posix.basename(repo)}.worktrees`);
}
