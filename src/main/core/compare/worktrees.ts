import { rmSync } from 'node:fs';
import { git } from './git';

/** Creates a worktree of `repo` at `commit` on a new branch. */
export async function addWorktree(repo: string, path: string, branch: string, commit: string): Promise<void> {
  await git(repo, ['worktree', 'add', '-b', branch, path, commit]);
}

/** Removes the worktree (even with changes) and its branch. */
export async function removeWorktree(repo: string, path: string, branch: string): Promise<void> {
  try {
    await git(repo, ['worktree', 'remove', '--force', path]);
  } catch {
    rmSync(path, { recursive: true, force: true });
    await git(repo, ['worktree', 'prune']).catch(() => undefined);
  }
  await git(repo, ['branch', '-D', branch]).catch(() => undefined);
}

/** Stages everything in the worktree so committed, modified and new files all count as the run's change. */
async function stageAll(worktree: string): Promise<void> {
  await git(worktree, ['add', '-A']);
}

/**
 * Applies the worktree's change (relative to `base`) to the main checkout's working tree. Checked first:
 * when any hunk does not apply (the checkout changed those lines since), nothing is touched.
 */
export async function applyWorktree(worktree: string, base: string, repo: string): Promise<string[]> {
  await stageAll(worktree);
  const patch = await git(worktree, ['diff', '--cached', '--binary', '-M', base]);
  if (!patch.trim()) return [];
  const names = (await git(worktree, ['diff', '--cached', '--name-only', '-M', base])).split('\n').filter(Boolean);
  await git(repo, ['apply', '--check', '--whitespace=nowarn', '-'], { input: patch });
  await git(repo, ['apply', '--whitespace=nowarn', '-'], { input: patch });
  return names;
}
