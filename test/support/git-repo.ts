import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';
import { WAIT } from './waits';

/** `git` in one folder, its output as text. */
export const gitIn =
  (dir: string) =>
  (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

/** Makes `dir` a repository on `main` with one commit (a README), as a user's project. */
export function initRepo(dir: string): void {
  const git = gitIn(dir);
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Test User');
  git('config', 'user.email', 'test@example.test');
  writeFileSync(join(dir, 'README.md'), '# project\n');
  git('add', '-A');
  git('commit', '-qm', 'init');
}

/** The path of the repository's one worktree made by a worktree session (under `<repo>.worktrees`). */
export function sessionWorktree(repo: string): string {
  const line = gitIn(repo)('worktree', 'list', '--porcelain')
    .split('\n')
    .find((l) => l.startsWith('worktree ') && l.includes('.worktrees'));
  if (!line) throw new Error(`no worktree session's worktree in ${repo}`);
  return line.slice('worktree '.length);
}

/** In a session's worktree bar: opens Finish, commits `file` with `message`, and waits for the branch to be one ahead. */
export async function commitFromFinish(bar: Locator, finish: Locator, file: string, message: string): Promise<void> {
  await bar.getByTestId('worktree-finish-toggle').click();
  await finish.getByTestId('worktree-files').getByText(file).waitFor({ timeout: WAIT.server });
  await finish.getByTestId('worktree-commit-message').fill(message);
  await finish.getByTestId('worktree-commit').click();
  await finish.getByTestId('worktree-note').getByText('Committed').waitFor({ timeout: WAIT.server });
  await expect.poll(() => bar.getByTestId('worktree-counts').innerText(), { timeout: WAIT.server }).toContain('↑1 ↓0');
}
