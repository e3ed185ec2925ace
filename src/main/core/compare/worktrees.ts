import { rmSync } from 'node:fs';
import type { Host } from '../host/host';
import { git, type GitOptions } from '../worktrees/git';
import { deleteBranch, removeWorktree as removeGitWorktree } from '../worktrees/worktree-git';

type HookOption = Pick<GitOptions, 'repoHooks'>;

export { addWorktree } from '../worktrees/worktree-git';

/** Removes the worktree (even with changes, even when git no longer knows it) and its branch. */
export async function removeWorktree(host: Host, repo: string, path: string, branch: string, o: HookOption = {}): Promise<void> {
  try {
    await removeGitWorktree(host, repo, path, branch, o);
  } catch {
    rmSync(path, { recursive: true, force: true });
    await git(host, repo, ['worktree', 'prune'], o).catch(() => undefined);
    await deleteBranch(host, repo, branch, o).catch(() => undefined);
  }
}

/** Stages everything in the worktree so committed, modified and new files all count as the run's change. */
async function stageAll(host: Host, worktree: string, o: HookOption): Promise<void> {
  await git(host, worktree, ['add', '-A'], o);
}

/**
 * Applies the worktree's change (relative to `base`) to the main checkout's working tree. Checked first:
 * when any hunk does not apply (the checkout changed those lines since), nothing is touched.
 */
export async function applyWorktree(host: Host, worktree: string, base: string, repo: string, o: HookOption = {}): Promise<string[]> {
  await stageAll(host, worktree, o);
  const patch = await git(host, worktree, ['diff', '--cached', '--binary', '--no-ext-diff', '--no-textconv', '-M', base], o);
  if (!patch.trim()) return [];
  // -z: a name may hold a newline or a tab.
  const names = (await git(host, worktree, ['diff', '--cached', '--name-only', '-z', '-M', base], o)).split('\0').filter(Boolean);
  await git(host, repo, ['apply', '--check', '--whitespace=nowarn', '-'], { ...o, input: patch });
  await git(host, repo, ['apply', '--whitespace=nowarn', '-'], { ...o, input: patch });
  return names;
}
