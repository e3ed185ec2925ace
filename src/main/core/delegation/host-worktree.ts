import { posix } from 'node:path';
import { suggestBranchName } from '../../../shared/contract/worktrees';
import type { Host } from '../host/host';
import { gitOwn } from '../worktrees/git';

/**
 * A delegated session's worktree on an SSH host (where the worktrees service, which works on this machine's
 * folders, does not reach): a new branch `delegate/<task words>` (the next free one) from the folder's current
 * branch, checked out in `<repository>.worktrees/<branch's last part>` beside the repository, on the host.
 */
export async function hostWorktree(host: Host, folder: string, task: string): Promise<{ path: string; branch: string }> {
  const head = await gitOwn(host, folder, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const base = head.code === 0 ? head.stdout.trim() : null;
  if (!base) throw new Error(`${folder} is not on a branch (not a git repository, or a detached HEAD): a new worktree starts from a branch`);
  const top = await gitOwn(host, folder, ['rev-parse', '--show-toplevel']);
  const repo = top.stdout.trim();
  if (top.code !== 0 || !repo.startsWith('/')) throw new Error(`${folder} is not a git repository`);
  const prefix = suggestBranchName(task, 'delegate');
  for (let n = 1; n <= 100; n++) {
    const branch = n === 1 ? prefix : `${prefix}-${n}`;
    const taken = await gitOwn(host, repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]);
    if (taken.code === 0) continue;
    const path = posix.join(`${repo}.worktrees`, posix.basename(branch));
    const added = await gitOwn(host, repo, ['worktree', 'add', '-b', branch, path, base]);
    if (added.code === 0) return { path, branch };
    if (!/already exists/.test(added.output)) throw new Error(`could not make the worktree: ${added.output.slice(0, 500)}`);
  }
  throw new Error('could not make the worktree: every branch name tried is taken');
}
