import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** `p` with symlinks resolved as far as it exists (the rest appended as written). */
export function realish(p: string): string {
  const abs = resolve(p);
  let head = abs;
  const rest: string[] = [];
  while (!existsSync(head)) {
    const up = dirname(head);
    if (up === head) break;
    rest.unshift(basename(head));
    head = up;
  }
  return join(existsSync(head) ? realpathSync(head) : head, ...rest);
}

/** `child` is `parent` or inside it (both already resolved). */
export function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Where a repository's worktrees go: `<setting>/<repo name>`, or beside the repository (`<repo>.worktrees`). */
export function worktreeFolder(repo: string, setting: string): string {
  return setting ? join(setting, basename(repo)) : join(dirname(repo), `${basename(repo)}.worktrees`);
}

/** Why the worktrees folder cannot be used (inside the repository or the data folder), or null. */
export function folderProblem(folder: string, repo: string, dataDir: string): string | null {
  const f = realish(folder);
  if (isInside(f, realish(repo))) return `the worktrees folder ${folder} is inside the repository ${repo}`;
  if (isInside(f, realish(dataDir))) return `the worktrees folder ${folder} is inside Switchboard's data folder`;
  return null;
}

/** A folder name for a branch: 'sb/fix-login' → 'sb-fix-login'. */
export const folderNameFor = (branch: string): string => branch.replace(/[/\\]+/g, '-').replace(/^\.+/, '') || 'worktree';
