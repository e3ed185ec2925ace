import type { Host } from '../host/host';
import { git, GitError, gitOwn, gitTry, type GitOptions } from './git';

type HookOption = Pick<GitOptions, 'repoHooks'>;

/** The worktree commands under way, per host and repository (the tail of each one's queue). */
const running = new WeakMap<Host, Map<string, Promise<void>>>();

/**
 * Runs git's worktree commands of one repository one at a time. Git does not guard them against each other:
 * `git worktree add` reads every other worktree's admin folder, which a concurrent add is still writing ("fatal:
 * failed to read .git/worktrees/<name>/commondir"), and a prune may take a half-made one for a stale one.
 */
function oneAtATime<T>(host: Host, repo: string, work: () => Promise<T>): Promise<T> {
  let queues = running.get(host);
  if (!queues) running.set(host, (queues = new Map()));
  const result = (queues.get(repo) ?? Promise.resolve()).then(work);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(repo, tail);
  void tail.then(() => queues.get(repo) === tail && queues.delete(repo));
  return result;
}

/** Creates a worktree of `repo` at `commit` on a new branch (a GitError with git's output when it cannot). */
export async function addWorktree(host: Host, repo: string, path: string, branch: string, commit: string, o: HookOption = {}): Promise<void> {
  await oneAtATime(host, repo, () => git(host, repo, ['worktree', 'add', '-b', branch, '--', path, commit], o));
}

/** Removes a worktree's folder and its record in `repo` (even with changes); its branch stays. */
export async function removeWorktreeFolder(host: Host, repo: string, path: string, o: HookOption = {}): Promise<void> {
  await oneAtATime(host, repo, () => git(host, repo, ['worktree', 'remove', '--force', '--', path], o));
}

/** Drops the records of worktrees whose folders are gone. */
export async function pruneWorktrees(host: Host, repo: string): Promise<void> {
  await oneAtATime(host, repo, () => gitOwn(host, repo, ['worktree', 'prune']));
}

/**
 * Removes the worktree (even with changes) and then its branch. Throws a GitError when git could not remove the
 * worktree (the branch is then kept); a branch already gone is no error.
 */
export async function removeWorktree(host: Host, repo: string, path: string, branch: string, o: HookOption = {}): Promise<void> {
  await removeWorktreeFolder(host, repo, path, o);
  await deleteBranch(host, repo, branch, o);
}

export async function deleteBranch(host: Host, repo: string, branch: string, o: HookOption = {}): Promise<void> {
  try {
    await git(host, repo, ['branch', '-D', '--', branch], o);
  } catch (e) {
    const gone = (await gitTry(host, repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).code !== 0;
    if (!gone || !(e instanceof GitError)) throw e;
  }
}
