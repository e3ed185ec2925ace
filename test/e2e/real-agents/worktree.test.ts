import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { suggestBranchName } from '../../../src/shared/contract/worktrees';
import { commitFromFinish, gitIn, initRepo, sessionWorktree } from '../../support/git-repo';
import { appSuite } from '../../support/app-suite';
import { tempDir } from '../../support/app-server';
import { connectContract } from '../../support/contract-client';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index.js';
import { claudeCodeLaunch, createAgentHome, requireOrSkipAgent, type AgentHome } from '../../support/real-agents/index.js';
import { agentRow } from '../../support/ui';
import { WAIT } from '../../support/waits';

/**
 * Issue 26 end to end with a real agent: Claude Code (the registry's, offline against the fake LLM) starts in a
 * new worktree on a branch named from the first message, runs a shell command there after its permission card
 * is answered, and the session's Finish panel commits the file and merges the branch: the main checkout then
 * has it, and had nothing of it before. Then a branch that conflicts with the user's own work on main: the
 * agent drafts the commit message, the merge is refused with the file listed and the main checkout untouched,
 * and the agent, asked to resolve the conflicts, merges main into its branch in the worktree; the merge then
 * goes through.
 */

const available = requireOrSkipAgent('claude-code');
let llm: FakeLlm | null = null;
let home: AgentHome | null = null;
let repo = '';
// Other repositories the tests make, with their worktree folders beside them.
const roots: string[] = [];
const git = (...args: string[]) => gitIn(repo)(...args);

const suite = appSuite('worktree-real', async (app) => {
  if (!available) return;
  llm = await startFakeLlm();
  home = createAgentHome('claude-code');
  const launch = claudeCodeLaunch({ llmUrl: llm.url, home: home.home });
  const c = await connectContract(app);
  await c.call('agents.addCustom', { name: 'Claude Code', command: launch.command, args: launch.args, env: launch.env });
  c.close();
  repo = suite.work;
  initRepo(repo);
});

// The agent writes to its HOME until the server that runs it has stopped.
suite.afterStop(async () => {
  await llm?.close();
  home?.dispose();
  for (const dir of [...(repo ? [`${repo}.worktrees`] : []), ...roots]) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!available)('Claude Code in a worktree session, in Chromium', { timeout: 300_000 }, () => {
  it('works on its own branch; the session commits and merges it, and the main checkout has the change', async () => {
    const { page } = await suite.open({ empty: true });
    const prompt = 'Please add the release notes';
    llm!.when('add the release notes', [{ kind: 'shell', command: "printf 'notes from claude\\n' > release-notes.txt" }]);
    const { tab, bar, branch } = await startWorktreeSession(page, repo, prompt);
    await allowAndAwaitReply(page, tab, 'all 1 step(s) done');

    // The command ran in the worktree; the main checkout has nothing of it.
    const worktree = sessionWorktree(repo);
    expect(readFileSync(join(worktree, 'release-notes.txt'), 'utf8')).toBe('notes from claude\n');
    expect(existsSync(join(repo, 'release-notes.txt'))).toBe(false);

    const finish = tab.getByTestId('worktree-finish');
    await commitFromFinish(bar, finish, 'release-notes.txt', 'Add the release notes');

    await finish.getByTestId('worktree-strategy').selectOption('merge');
    await finish.getByTestId('worktree-merge').click();
    await finish.getByTestId('worktree-note').getByText('main is now at').waitFor({ timeout: WAIT.server });
    expect(readFileSync(join(repo, 'release-notes.txt'), 'utf8')).toBe('notes from claude\n');
    expect(git('status', '--porcelain')).toBe('');
    expect(git('log', '-2', '--format=%s').split('\n').filter(Boolean)).toEqual([`Merge branch '${branch}'`, 'Add the release notes']);
  });

  it('drafts the commit message; a conflicting merge leaves main as it was, and the agent resolves it in its worktree', async () => {
    const root = realpathSync(tempDir('sb-worktree-conflict-'));
    roots.push(root);
    const project = join(root, 'project');
    mkdirSync(project);
    initRepo(project);
    const inMain = gitIn(project);
    writeFileSync(join(project, 'greeting.txt'), 'hello\n');
    inMain('add', 'greeting.txt');
    inMain('commit', '-qm', 'Add the greeting');

    const { page } = await suite.open({ empty: true });
    llm!.when('greet from the branch', [{ kind: 'shell', command: "printf 'hello from the branch\\n' > greeting.txt" }]);
    const { tab, bar } = await startWorktreeSession(page, project, 'Please greet from the branch');
    await allowAndAwaitReply(page, tab, 'all 1 step(s) done');
    const worktree = sessionWorktree(project);
    expect(readFileSync(join(worktree, 'greeting.txt'), 'utf8')).toBe('hello from the branch\n');

    // Meanwhile the user changes the same line on main, in the main checkout.
    writeFileSync(join(project, 'greeting.txt'), 'hello from main\n');
    inMain('commit', '-qam', 'Greet from main');
    const mainHead = inMain('rev-parse', 'HEAD').trim();

    // The agent drafts the message in the thread; the user copies it into the message box.
    const draft = 'Greet from the branch\n\nThe greeting now says where it comes from.';
    llm!.when('Draft a git commit message', [{ kind: 'text', text: draft }]);
    await bar.getByTestId('worktree-finish-toggle').click();
    const finish = tab.getByTestId('worktree-finish');
    await finish.getByTestId('worktree-files').getByText('greeting.txt').waitFor({ timeout: WAIT.server });
    await finish.getByTestId('worktree-draft-message').click();
    await tab.getByTestId('agent-message').filter({ hasText: 'The greeting now says where it comes from.' }).waitFor({ timeout: WAIT.agent });
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });
    await finish.getByTestId('worktree-commit-message').fill(draft);
    await finish.getByTestId('worktree-commit').click();
    await finish.getByTestId('worktree-note').getByText('Committed').waitFor({ timeout: WAIT.server });
    expect(gitIn(worktree)('log', '-1', '--format=%B').trim()).toBe(draft);
    await expect.poll(() => bar.getByTestId('worktree-counts').innerText(), { timeout: WAIT.server }).toContain('↑1 ↓1');

    // The merge is refused with the file listed, and the main checkout is as the user left it.
    await finish.getByTestId('worktree-strategy').selectOption('merge');
    await finish.getByTestId('worktree-merge').click();
    const conflict = finish.getByTestId('worktree-conflict');
    await conflict.getByText('greeting.txt').waitFor({ timeout: WAIT.server });
    expect(inMain('status', '--porcelain')).toBe('');
    expect(inMain('rev-parse', 'HEAD').trim()).toBe(mainHead);
    expect(readFileSync(join(project, 'greeting.txt'), 'utf8')).toBe('hello from main\n');

    // Asked to resolve, the agent merges main into its branch in the worktree, keeps both lines and commits.
    llm!.when('resolve the conflicts in those files', [
      {
        kind: 'shell',
        command: "git merge main; printf 'hello from main\\nhello from the branch\\n' > greeting.txt && git add greeting.txt && git commit -q --no-edit && echo conflicts-settled",
      },
    ]);
    await conflict.getByTestId('worktree-resolve').click();
    await llm!.waitForRequest((r) => r.kind === 'turn' && (r.promptText ?? '').includes('conflicts in: greeting.txt'), { timeoutMs: WAIT.agent });
    await allowAndAwaitReply(page, tab, 'conflicts-settled');
    expect(readFileSync(join(worktree, 'greeting.txt'), 'utf8')).toBe('hello from main\nhello from the branch\n');
    expect(inMain('rev-parse', 'HEAD').trim()).toBe(mainHead);
    await expect.poll(() => bar.getByTestId('worktree-counts').innerText(), { timeout: WAIT.server }).toContain('↑2 ↓0');

    await finish.getByTestId('worktree-merge').click();
    await finish.getByTestId('worktree-note').getByText('main is now at').waitFor({ timeout: WAIT.server });
    await conflict.waitFor({ state: 'detached', timeout: WAIT.page });
    expect(readFileSync(join(project, 'greeting.txt'), 'utf8')).toBe('hello from main\nhello from the branch\n');
    expect(inMain('status', '--porcelain')).toBe('');
    expect(inMain('rev-list', '--count', `${mainHead}..HEAD`).trim()).toBe('3');
  });
});

/** Starts a Claude Code session in a new worktree of `folder`, on the branch named from `prompt`, which it is sent. */
async function startWorktreeSession(page: Page, folder: string, prompt: string): Promise<{ tab: Locator; bar: Locator; branch: string }> {
  await agentRow(page, 'Claude Code').getByTestId('agent-new-session').click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByTestId('new-session-folder').fill(folder);
  await dialog.getByTestId('where-new').click({ timeout: WAIT.server });
  await dialog.getByTestId('where-prompt').fill(prompt);
  const branch = suggestBranchName(prompt);
  await expect.poll(() => dialog.getByTestId('where-branch').inputValue(), { timeout: WAIT.page }).toBe(branch);
  await dialog.getByTestId('new-session-start').click();
  await dialog.waitFor({ state: 'detached', timeout: WAIT.server });

  const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
  const bar = tab.getByTestId('worktree-bar');
  // A real agent's cold start on a loaded machine.
  await bar.waitFor({ timeout: 120_000 });
  await expect(bar.getByTestId('worktree-branch').innerText()).resolves.toBe(branch);
  return { tab, bar, branch };
}

/** Allows the agent's shell command once, then waits for its reply holding `text` and for the session to be idle. */
async function allowAndAwaitReply(page: Page, tab: Locator, text: string): Promise<void> {
  const card = tab.getByTestId('permission-card').last();
  // The first prompt's card comes after a real agent's cold start.
  await card.waitFor({ timeout: 120_000 });
  await card.locator('[data-testid=permission-option][data-kind=allow_once]').click();
  await tab.getByTestId('agent-message').filter({ hasText: text }).waitFor({ timeout: WAIT.agent });
  await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });
}
