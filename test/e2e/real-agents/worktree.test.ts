import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { suggestBranchName } from '../../../src/shared/contract/worktrees';
import { commitFromFinish, gitIn, initRepo, sessionWorktree } from '../../support/git-repo';
import { appSuite } from '../../support/app-suite';
import { connectContract } from '../../support/contract-client';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index.js';
import { claudeCodeLaunch, createAgentHome, requireOrSkipAgent, type AgentHome } from '../../support/real-agents/index.js';
import { agentRow } from '../../support/ui';
import { WAIT } from '../../support/waits';

/**
 * Issue 26 end to end with a real agent: Claude Code (the registry's, offline against the fake LLM) starts in a
 * new worktree on a branch named from the first message, runs a shell command there after its permission card
 * is answered, and the session's Finish panel commits the file and merges the branch: the main checkout then
 * has it, and had nothing of it before.
 */

const available = requireOrSkipAgent('claude-code');
let llm: FakeLlm | null = null;
let home: AgentHome | null = null;
let repo = '';
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
});

describe.skipIf(!available)('Claude Code in a worktree session, in Chromium', { timeout: 300_000 }, () => {
  it('works on its own branch; the session commits and merges it, and the main checkout has the change', async () => {
    const { page } = await suite.open({ empty: true });
    const prompt = 'Please add the release notes';
    llm!.when('add the release notes', [{ kind: 'shell', command: "printf 'notes from claude\\n' > release-notes.txt" }]);

    await agentRow(page, 'Claude Code').getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-folder').fill(repo);
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
    const card = tab.getByTestId('permission-card').last();
    await card.waitFor({ timeout: 120_000 });
    await card.locator('[data-testid=permission-option][data-kind=allow_once]').click();
    await tab.getByTestId('agent-message').filter({ hasText: 'all 1 step(s) done' }).waitFor({ timeout: WAIT.agent });
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });

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
});
