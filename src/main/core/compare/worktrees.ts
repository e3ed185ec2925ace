import { rmSync } from 'node:fs';
import type { Host } from '../host/host';
import { git } from './git';

/** Creates a worktree of `repo` at `commit` on a new branch. */
export async function addWorktree(host: Host, repo: string, path: string, branch: string, commit: string): Promise<void> {
  await git(host, repo, ['worktree', 'add', '-b', branch, path, commit]);
}

/** Removes the worktree (even with changes) and its branch. */
export async function removeWorktree(host: Host, repo: string, path: string, branch: string): Promise<void> {
  try {
    await git(host, repo, ['worktree', 'remove', '--force', path]);
  } catch {
    rmSync(path, { recursive: true, force: true });
    await git(host, repo, ['worktree', 'prune']).catch(() => undefined);
  }
  await git(host, repo, ['branch', '-D', branch]).catch(() => undefined);
}

/** Stages everything in the worktree so committed, modified and new files all count as the run's change. */
async function stageAll(host: Host, worktree: string): Promise<void> {
  await git(host, worktree, ['add', '-A']);
}

/**
 * Applies the worktree's change (relative to `base`) to the main checkout's working tree. Checked first:
 * when any hunk does not apply (the checkout changed those lines since), nothing is touched.
 */
export async function applyWorktree(host: Host, worktree: string, base: string, repo: string): Promise<string[]> {
  await stageAll(host, worktree);
  const patch = await git(host, worktree, ['diff', '--cached', '--binary', '-M', base]);
  if (!patch.trim()) return [];
  const names = (await git(host, worktree, ['diff', '--cached', '--name-only', '-M', base])).split('\n').filter(Boolean);
  await git(host, repo, ['apply', '--check', '--whitespace=nowarn', '-'], { input: patch });
  await git(host, repo, ['apply', '--whitespace=nowarn', '-'], { input: patch });
  return names;
}
