import type { Host } from '../host/host';
import { git, GitError, type GitOptions } from './git';

type HookOption = Pick<GitOptions, 'repoHooks'>;

/** Creates a worktree of `repo` at `commit` on a new branch (a GitError with git's output when it cannot). */
export async function addWorktree(host: Host, repo: string, path: string, branch: string, commit: string, o: HookOption = {}): Promise<void> {
  await git(host, repo, ['worktree', 'add', '-b', branch, path, commit], o);
}

/**
 * Removes the worktree (even with changes) and then its branch. Throws a GitError when git could not remove the
 * worktree (the branch is then kept); a branch already gone is no error.
 */
export async function removeWorktree(host: Host, repo: string, path: string, branch: string, o: HookOption = {}): Promise<void> {
  await git(host, repo, ['worktree', 'remove', '--force', path], o);
  await deleteBranch(host, repo, branch, o);
}

export async function deleteBranch(host: Host, repo: string, branch: string, o: HookOption = {}): Promise<void> {
  try {
    await git(host, repo, ['branch', '-D', branch], o);
  } catch (e) {
    const gone = (await host.git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo })).code !== 0;
    if (!gone || !(e instanceof GitError)) throw e;
  }
}
