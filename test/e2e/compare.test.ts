import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';

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
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), '# project\n');
  git('add', '-A');
  git('commit', '-qm', 'init');
});

describe('compare mode in Chromium', () => {
  it('sends one prompt to two agents in their own worktrees, shows both results and diffs, and applies the chosen one', async () => {
    const { page, errors } = await suite.open();
    page.on('dialog', (d) => void d.accept());
    await page.locator('.tab-new').click();
    await page.getByTestId('launch-compare').click();
    await page.getByTestId('compare-repo').fill(repo);
    await page.getByTestId('compare-prompt').fill('write-here notes.txt written in a worktree');
    await page.getByRole('checkbox', { name: 'Alpha agent' }).check();
    await page.getByRole('checkbox', { name: 'Beta agent' }).check();
    await page.getByTestId('compare-start').click();

    await page.getByTestId('compare-view').waitFor({ timeout: 60_000 });
    // Both runs end (the agents each wrote notes.txt into their own worktree).
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=compare-row]')].filter((r) => r.textContent?.includes('end_turn')).length === 2, null, {
      timeout: 60_000,
    });
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);
    const diffs = page.getByTestId('compare-run-diff');
    await expect(diffs.count()).resolves.toBe(2);
    for (const i of [0, 1]) {
      await diffs.nth(i).getByText('1 file changed').waitFor();
      // Each agent's changes from its session's checkpoints: the new file, shown as added content.
      await diffs.nth(i).getByTestId('change-file').filter({ hasText: 'notes.txt' }).and(page.locator('[data-status=added]')).waitFor();
      await diffs.nth(i).locator('[data-testid=monaco-diff][data-ready=true]').waitFor();
    }
    // Monaco renders spaces as no-break spaces.
    expect((await diffs.nth(0).locator('[data-testid=monaco-diff] .view-lines').first().innerText()).replace(/\u00a0/g, ' ')).toContain('written in a worktree');

    // The sessions open side by side in their own panes.
    await page.getByRole('button', { name: 'Show sessions side by side' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=pane]').length >= 3);

    await diffs.nth(1).getByTestId('compare-apply').click();
    await diffs.nth(1).getByRole('button', { name: 'Applied' }).waitFor();
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('written in a worktree');
    expect(git('worktree', 'list').split('\n').filter(Boolean).length).toBe(3);
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
