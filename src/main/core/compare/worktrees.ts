import { rmSync } from 'node:fs';
import { git, type GitOptions } from './git';

type HookOption = Pick<GitOptions, 'repoHooks'>;

/** Creates a worktree of `repo` at `commit` on a new branch. */
export async function addWorktree(repo: string, path: string, branch: string, commit: string, o: HookOption = {}): Promise<void> {
  await git(repo, ['worktree', 'add', '-b', branch, path, commit], o);
}

/** Removes the worktree (even with changes) and its branch. */
export async function removeWorktree(repo: string, path: string, branch: string, o: HookOption = {}): Promise<void> {
  try {
    await git(repo, ['worktree', 'remove', '--force', path], o);
  } catch {
    rmSync(path, { recursive: true, force: true });
    await git(repo, ['worktree', 'prune'], o).catch(() => undefined);
  }
  await git(repo, ['branch', '-D', branch], o).catch(() => undefined);
}

/** Stages everything in the worktree so committed, modified and new files all count as the run's change. */
async function stageAll(worktree: string, o: HookOption): Promise<void> {
  await git(worktree, ['add', '-A'], o);
}

/**
 * Applies the worktree's change (relative to `base`) to the main checkout's working tree. Checked first:
 * when any hunk does not apply (the checkout changed those lines since), nothing is touched.
 */
export async function applyWorktree(worktree: string, base: string, repo: string, o: HookOption = {}): Promise<string[]> {
  await stageAll(worktree, o);
  const patch = await git(worktree, ['diff', '--cached', '--binary', '--no-ext-diff', '--no-textconv', '-M', base], o);
  if (!patch.trim()) return [];
  // -z: a name may hold a newline or a tab.
  const names = (await git(worktree, ['diff', '--cached', '--name-only', '-z', '-M', base], o)).split('\0').filter(Boolean);
  await git(repo, ['apply', '--check', '--whitespace=nowarn', '-'], { ...o, input: patch });
  await git(repo, ['apply', '--whitespace=nowarn', '-'], { ...o, input: patch });
  return names;
}
