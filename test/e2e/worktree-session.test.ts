import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { suggestBranchName } from '../../src/shared/contract/worktrees';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { commitFromFinish, gitIn, initRepo, sessionWorktree } from '../support/git-repo';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { agentRow } from '../support/ui';
import { WAIT } from '../support/waits';

let repo = '';
const git = (...args: string[]) => gitIn(repo)(...args);

const suite = appSuite('worktree-session', async (app) => {
  const c = await connectContract(app);
  const { command, args } = scenarioAgentCommand();
  await c.call('agents.addCustom', { name: 'Tree agent', command, args, env: {} });
  c.close();
  repo = suite.work;
  initRepo(repo);
});

describe('a session in its own worktree, in Chromium', { timeout: 120_000 }, () => {
  it('starts in a new worktree on a branch named from its first message; its change is committed and merged into the main checkout', async () => {
    const { page, errors } = await suite.open({ empty: true });
    let nativeDialogs = 0;
    page.on('dialog', (d) => {
      nativeDialogs++;
      void d.dismiss();
    });
    await agentRow(page, 'Tree agent').getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-folder').fill(repo);
    await dialog.getByTestId('where-new').click({ timeout: WAIT.server });
    const prompt = 'write-here notes.txt written in a worktree';
    await dialog.getByTestId('where-prompt').fill(prompt);
    const branch = suggestBranchName(prompt);
    await expect.poll(() => dialog.getByTestId('where-branch').inputValue(), { timeout: WAIT.page }).toBe(branch);
    await expect(dialog.getByTestId('where-base').inputValue()).resolves.toBe('main');
    await dialog.getByTestId('new-session-start').click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT.server });

    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    const bar = tab.getByTestId('worktree-bar');
    await bar.waitFor({ timeout: WAIT.agent });
    await expect(bar.getByTestId('worktree-branch').innerText()).resolves.toBe(branch);
    // The agent wrote its file in the worktree; the main checkout has not changed.
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });
    const worktree = sessionWorktree(repo);
    expect(readFileSync(join(worktree, 'notes.txt'), 'utf8')).toBe('written in a worktree');
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);

    const finish = tab.getByTestId('worktree-finish');
    await commitFromFinish(bar, finish, 'notes.txt', 'Add notes');

    // In a small window the open Finish panel scrolls within itself: the thread keeps a readable share of the tab.
    await page.setViewportSize({ width: 1024, height: 700 });
    await expect.poll(async () => Math.round((await tab.locator('.thread').boundingBox())?.height ?? 0), { timeout: WAIT.page }).toBeGreaterThanOrEqual(240);
    await page.setViewportSize({ width: 1280, height: 800 });

    // The pull request's title and description, drafted by the session's agent on request, fill the form to edit.
    await finish.getByTestId('worktree-pr-draft').click();
    await expect.poll(() => finish.getByTestId('worktree-pr-title').inputValue(), { timeout: WAIT.agent }).toBe('Add notes');
    await expect(finish.getByTestId('worktree-pr-body').inputValue()).resolves.toContain('- `notes.txt`');
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });

    await finish.getByTestId('worktree-strategy').selectOption('squash');
    await finish.getByTestId('worktree-merge').click();
    await finish.getByTestId('worktree-note').getByText('main is now at').waitFor({ timeout: WAIT.server });
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('written in a worktree');
    expect(git('status', '--porcelain')).toBe('');
    expect(git('log', '-1', '--format=%B')).toContain('* Add notes');

    // Discard: nothing unmerged now, the app's own dialog asks first.
    await finish.getByTestId('worktree-discard').click();
    const confirm = page.getByTestId('confirm-dialog');
    await confirm.getByText('Everything committed is in main').waitFor({ timeout: WAIT.server });
    await confirm.getByTestId('confirm-ok').click();
    // The worktree goes first, then its branch; the session's bar goes with them.
    await expect.poll(() => git('branch', '--list', branch), { timeout: WAIT.server }).toBe('');
    expect(existsSync(worktree)).toBe(false);
    await bar.waitFor({ state: 'detached', timeout: WAIT.server });
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    expect(nativeDialogs).toBe(0);
  });
});
