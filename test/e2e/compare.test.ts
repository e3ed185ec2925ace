import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { initRepo } from '../support/git-repo';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { WAIT } from '../support/waits';

/** The project repository the agents compare in: the suite's folder. */
let repo = '';

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

const suite = appSuite('compare', async (app) => {
  const c = await connectContract(app);
  const { command, args } = scenarioAgentCommand();
  for (const name of ['Alpha agent', 'Beta agent']) await c.call('agents.addCustom', { name, command, args, env: {} });
  c.close();
  repo = suite.work;
  initRepo(repo);
});

describe('compare mode in Chromium', { timeout: 180_000 }, () => {
  it('sends one prompt to two agents as worktree sessions, shows both diffs, merges the chosen one into the main checkout and discards the other', async () => {
    const { page, errors } = await suite.open();
    let nativeDialogs = 0;
    page.on('dialog', (d) => {
      nativeDialogs++;
      void d.dismiss();
    });
    await page.locator('.tab-new').click();
    await page.getByTestId('launch-compare').click();
    await page.getByTestId('compare-repo').fill(repo);
    // The branch to start from: the main checkout's, offered once the folder is known to be a repository.
    await expect.poll(() => page.getByTestId('compare-base').inputValue(), { timeout: WAIT.server }).toBe('main');
    await page.getByTestId('compare-prompt').fill('write-here notes.txt written in a worktree');
    await page.getByRole('checkbox', { name: 'Alpha agent' }).check();
    await page.getByRole('checkbox', { name: 'Beta agent' }).check();
    await page.getByTestId('compare-start').click();

    await page.getByTestId('compare-view').waitFor({ timeout: WAIT.agent });
    // Both runs end (the agents each wrote notes.txt into their own worktree).
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=compare-row]')].filter((r) => r.textContent?.includes('Finished')).length === 2, null, {
      timeout: 60_000,
    });
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);
    const alpha = 'compare/write-here-notes-txt-written-alpha-agent';
    const beta = 'compare/write-here-notes-txt-written-beta-agent';
    expect(git('branch', '--list', '--format=%(refname:short)', 'compare/*').split('\n').filter(Boolean).sort()).toEqual([alpha, beta]);
    const diffs = page.getByTestId('compare-run-diff');
    await expect(diffs.count()).resolves.toBe(2);
    for (const i of [0, 1]) {
      await diffs.nth(i).getByText('1 file changed').waitFor({ timeout: WAIT.server });
      // Each agent's changes from its session's checkpoints: the new file, shown as added content.
      await diffs.nth(i).getByTestId('change-file').filter({ hasText: 'notes.txt' }).and(page.locator('[data-status=added]')).waitFor({ timeout: WAIT.server });
      await diffs.nth(i).locator('[data-testid=monaco-diff][data-ready=true]').waitFor({ timeout: WAIT.server });
    }
    // Monaco renders spaces as no-break spaces.
    expect((await diffs.nth(0).locator('[data-testid=monaco-diff] .view-lines').first().innerText()).replace(/\u00a0/g, ' ')).toContain('written in a worktree');
    // Worktree sessions: the sidebar groups them by their branches.
    for (const branch of [alpha, beta]) await page.locator(`[data-testid=branch-group][data-branch="${branch}"]`).waitFor({ timeout: WAIT.server });

    // The sessions open side by side in their own panes.
    await page.getByRole('button', { name: 'Show sessions side by side' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=pane]').length >= 3, null, { timeout: WAIT.page });

    const betaRun = page.locator(`[data-testid=compare-run-diff][data-branch="${beta}"]`);
    const alphaRun = page.locator(`[data-testid=compare-run-diff][data-branch="${alpha}"]`);
    await expect(betaRun.getByTestId('compare-strategy').inputValue()).resolves.toBe('squash');
    await betaRun.getByTestId('compare-apply').click();
    // The app's own dialog asks first (not the browser's confirm()).
    await page.getByTestId('confirm-dialog').getByTestId('confirm-ok').click();
    await betaRun.getByRole('button', { name: 'Applied' }).waitFor({ timeout: WAIT.server });
    // Squashed into main, and the main checkout has the file.
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('written in a worktree');
    expect(git('log', '-1', '--format=%B', 'main')).toContain(beta);
    expect(git('status', '--porcelain')).toBe('');

    // The other run: keep or discard. Discard asks (listing what would be lost), then the worktree and branch are gone.
    await alphaRun.getByTestId('compare-keep').waitFor({ timeout: WAIT.page });
    await alphaRun.getByTestId('compare-discard').click();
    const confirm = page.getByTestId('confirm-dialog');
    await expect(confirm.innerText()).resolves.toContain('1 uncommitted file');
    await confirm.getByTestId('confirm-ok').click();
    await alphaRun.getByText('discarded').waitFor({ timeout: WAIT.server });
    expect(git('branch', '--list', alpha).trim()).toBe('');
    expect(git('worktree', 'list').split('\n').filter(Boolean)).toHaveLength(2);
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    expect(nativeDialogs).toBe(0);
  });
});
