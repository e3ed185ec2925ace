import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { suggestBranchName } from '../../src/shared/contract/worktrees';
import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { agentRow, recordNotifications, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { commitFromFinish, gitIn, initRepo } from '../support/git-repo';
import { WAIT } from '../support/waits';

/**
 * Tasks end to end in Chromium (issue 41): a task is made in the Tasks tab and queued against the scenario
 * agent; its run ends in the Inbox (counted in "needs you" and the window title) with its last message and
 * its changes; it is reverted (the file is gone) and re-run from the Inbox. A task with a token limit is
 * paused by the guard: the Inbox says what it spent, and Continue with +X lets it finish.
 */

const suite = appSuite('tasks', async (app) => {
  const c = await connectContract(app);
  const { command, args } = scenarioAgentCommand();
  await c.call('agents.addCustom', { name: 'Task agent', command, args, env: {} });
  c.close();
});

const visible = (page: Page, testId: string) => page.locator(`.tab-panel:not([hidden]) [data-testid=${testId}]`);

async function makeTask(page: Page, task: { name: string; prompt: string; folder: string; runTokens?: number; place?: 'worktree'; policy?: 'refuse' }): Promise<void> {
  await page.getByTestId('sidebar-open-tasks').click();
  const tab = visible(page, 'tasks-tab');
  await tab.getByTestId('task-new').click();
  const form = tab.getByTestId('task-form');
  await form.getByTestId('task-name').fill(task.name);
  await form.getByTestId('task-prompt').fill(task.prompt);
  await form.getByTestId('task-agent').selectOption({ label: 'Task agent' });
  await form.getByTestId('task-folder').fill(task.folder);
  if (task.runTokens) await form.getByTestId('task-limit-runTokens').fill(String(task.runTokens));
  if (task.place) await form.getByTestId('task-place').selectOption(task.place);
  if (task.policy) await form.getByTestId('task-policy').selectOption(task.policy);
  await form.getByTestId('task-save').click();
  await form.waitFor({ state: 'detached' });
  await tab.getByTestId('task-row').filter({ hasText: task.name }).getByTestId('task-queue').click();
}

describe('tasks, the queue and the Inbox in Chromium', { timeout: 180_000 }, () => {
  it('queues a task, shows its run in the Inbox with its changes, reverts it and re-runs it', async () => {
    const folder = join(suite.work, 'notes-project');
    mkdirSync(folder);
    const notes = join(folder, 'notes.txt');
    const { page, errors } = await suite.open({ empty: true });
    await makeTask(page, { name: 'Write the notes', prompt: 'sh-write notes.txt hello from the task', folder });

    await page.getByTestId('sidebar-open-inbox').click();
    const inbox = visible(page, 'inbox-tab');
    const run = inbox.locator('[data-testid=inbox-run][data-state=done]').filter({ hasText: 'Write the notes' });
    await run.waitFor({ timeout: WAIT.agent });
    await expect.poll(() => run.getByTestId('inbox-run-last').innerText(), { timeout: WAIT.page }).toContain('wrote notes.txt');
    await run.getByTestId('turn-changes-open').filter({ hasText: '1 added' }).waitFor({ timeout: WAIT.server });
    expect(readFileSync(notes, 'utf8')).toBe('hello from the task');
    // Counted in "needs you" and in the window title.
    await page.getByTestId('needs-you').filter({ hasText: '1 needs you' }).waitFor({ timeout: WAIT.page });
    await expect.poll(() => page.title(), { timeout: WAIT.page }).toMatch(/^\(1\) /);

    // Revert: the file the run added is gone, and the run leaves the Inbox for "Handled".
    await run.getByTestId('inbox-revert').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => existsSync(notes), { timeout: WAIT.server }).toBe(false);
    const handled = inbox.getByTestId('inbox-handled').getByTestId('inbox-run').filter({ hasText: 'Write the notes' });
    await handled.getByTestId('inbox-run-handled').filter({ hasText: 'reverted' }).waitFor({ timeout: WAIT.server });
    await inbox.getByTestId('inbox-empty').waitFor({ timeout: WAIT.page });
    await expect.poll(() => page.getByTestId('needs-you').count(), { timeout: WAIT.page }).toBe(0);

    // Re-run: a new run of the same task ends in the Inbox and writes the file again.
    await handled.getByTestId('inbox-rerun').click();
    const again = inbox.locator(':scope > [data-testid=inbox-run][data-state=done]').filter({ hasText: 'Write the notes' });
    await again.waitFor({ timeout: WAIT.agent });
    await expect.poll(() => existsSync(notes) && readFileSync(notes, 'utf8'), { timeout: WAIT.server }).toBe('hello from the task');
    expect(await again.getAttribute('data-run-id')).not.toBe(await handled.getAttribute('data-run-id'));
    // Dismissed: the Inbox is empty and nothing needs the user.
    await again.getByTestId('inbox-dismiss').click();
    await inbox.getByTestId('inbox-empty').waitFor({ timeout: WAIT.page });
    await expect.poll(() => page.getByTestId('needs-you').count(), { timeout: WAIT.page }).toBe(0);
    expect(errors).toEqual([]);
  });

  it('pauses a run at its token limit, says what it spent, and lets it go on with +X', async () => {
    const folder = join(suite.work, 'spend-project');
    mkdirSync(folder);
    const { page, errors } = await suite.open({ empty: true });
    const notes = await recordNotifications(page);
    await makeTask(page, { name: 'Spend a lot', prompt: 'spend 200 1000 0.01', folder, runTokens: 3000 });

    await page.getByTestId('sidebar-open-inbox').click();
    const inbox = visible(page, 'inbox-tab');
    const run = inbox.locator('[data-testid=inbox-run][data-state=paused]').filter({ hasText: 'Spend a lot' });
    await run.waitFor({ timeout: WAIT.agent });
    const pause = run.getByTestId('task-pause');
    await expect.poll(() => pause.getByTestId('task-pause-words').innerText(), { timeout: WAIT.page }).toMatch(/^Reached its limit of 3\.0k tokens \(tokens per run\): 3\.0k tokens spent\.$/);
    // It waits for the user: "needs you" counts it.
    await page.getByTestId('needs-you').filter({ hasText: '1 needs you' }).waitFor({ timeout: WAIT.page });
    await expect.poll(notes, { timeout: WAIT.page }).toContain('Spend a lot paused by its limit');

    await pause.getByTestId('task-pause-more').fill('100000');
    await pause.getByTestId('task-pause-continue').click();
    // Continued: out of the Inbox until it ends, then back in it, done.
    await inbox.locator('[data-testid=inbox-run][data-state=done]').filter({ hasText: 'Spend a lot' }).waitFor({ timeout: WAIT.agent });
    await expect.poll(notes, { timeout: WAIT.page }).toContain('Spend a lot finished');

    // Settings → Usage: today's spending of the task, and the last 14 days.
    await page.keyboard.press('Control+,');
    const usage = visible(page, 'usage-section');
    await usage.getByTestId('usage-task-row').filter({ hasText: 'Spend a lot' }).waitFor({ timeout: WAIT.server });
    expect(await usage.getByTestId('usage-bar').count()).toBe(14);
    expect(errors).toEqual([]);
  });

  it('makes a task from a session ("Run this again") and shows its schedule in words with its next three runs', async () => {
    const folder = join(suite.work, 'again-project');
    mkdirSync(folder);
    const { page, errors } = await suite.open({ empty: true });
    const tab = await startSessionFromSidebar(page, agentRow(page, 'Task agent'), folder);
    await sendPrompt(tab, 'sh-write again.txt once more');
    await tab.getByTestId('agent-message').filter({ hasText: 'wrote again.txt' }).waitFor({ timeout: WAIT.agent });
    await tab.getByTestId('session-action-run-again').click();

    const form = visible(page, 'task-form');
    await expect.poll(() => form.getByTestId('task-prompt').inputValue(), { timeout: WAIT.server }).toBe('sh-write again.txt once more');
    expect(await form.getByTestId('task-folder').inputValue()).toBe(folder);
    await form.getByTestId('task-schedule-kind').selectOption('daily');
    await form.getByTestId('task-schedule-at').fill('07:30');
    const preview = form.getByTestId('task-schedule-preview');
    await preview.getByTestId('task-schedule-text').filter({ hasText: 'every day at 07:30' }).waitFor({ timeout: WAIT.server });
    expect(await preview.getByTestId('task-schedule-next').count()).toBe(3);
    // A cron expression the core cannot read is said, and the task is not saved with it.
    await form.getByTestId('task-schedule-kind').selectOption('cron');
    await form.getByTestId('task-schedule-cron').fill('99 99 * * *');
    await form.getByTestId('task-schedule-error').waitFor({ timeout: WAIT.server });
    await form.getByTestId('task-schedule-cron').fill('30 7 * * 1-5');
    await preview.getByTestId('task-schedule-text').waitFor({ timeout: WAIT.server });
    await form.getByTestId('task-save').click();
    await form.waitFor({ state: 'detached' });
    const row = visible(page, 'tasks-tab').getByTestId('task-row').filter({ hasText: 'sh-write again.txt once more' });
    await row.getByTestId('task-row-schedule').waitFor({ timeout: WAIT.page });
    expect(errors).toEqual([]);
  });

  it('merges a worktree run from the Inbox through Finish; a run asking what its policy may not answer waits there, one refused is said', async () => {
    const repo = join(suite.work, 'tree-project');
    mkdirSync(repo);
    initRepo(repo);
    const { page, errors } = await suite.open({ empty: true });
    await makeTask(page, { name: 'Notes on a branch', prompt: 'sh-write notes.txt written by a task', folder: repo, place: 'worktree' });
    await page.getByTestId('sidebar-open-inbox').click();
    const inbox = visible(page, 'inbox-tab');
    const run = inbox.locator(':scope > [data-testid=inbox-run][data-state=done]').filter({ hasText: 'Notes on a branch' });
    await run.waitFor({ timeout: WAIT.agent });
    const bar = run.getByTestId('worktree-bar');
    await expect.poll(() => bar.getByTestId('worktree-branch').innerText(), { timeout: WAIT.server }).toBe(suggestBranchName('Notes on a branch', 'task'));
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);
    const finish = run.getByTestId('worktree-finish');
    await commitFromFinish(bar, finish, 'notes.txt', 'Add notes');
    await finish.getByTestId('worktree-merge').click();
    await finish.getByTestId('worktree-note').getByText('main is now at').waitFor({ timeout: WAIT.server });
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('written by a task');
    expect(gitIn(repo)('status', '--porcelain')).toBe('');
    await run.getByTestId('inbox-merged').click();
    await inbox.getByTestId('inbox-handled').getByTestId('inbox-run-handled').filter({ hasText: 'merged' }).waitFor({ timeout: WAIT.server });

    // Policy "ask": the run's shell command waits for the user, in the Inbox and in "needs you".
    const folder = join(suite.work, 'ask-project');
    mkdirSync(folder);
    await makeTask(page, { name: 'Run the tests', prompt: 'ask-run npm test', folder });
    await page.getByTestId('sidebar-open-inbox').click();
    const asking = inbox.locator(':scope > [data-testid=inbox-run]').filter({ hasText: 'Run the tests' });
    await asking.getByTestId('inbox-run-waits').waitFor({ timeout: WAIT.agent });
    await page.getByTestId('needs-you').waitFor({ timeout: WAIT.page });
    await asking.getByTestId('inbox-answer').click();
    await visible(page, 'session-tab').getByTestId('permission-card').waitFor({ timeout: WAIT.page });
    await page.getByTestId('sidebar-open-inbox').click();
    await asking.getByTestId('inbox-cancel').click();
    await inbox.locator(':scope > [data-testid=inbox-run][data-state=cancelled]').filter({ hasText: 'Run the tests' }).waitFor({ timeout: WAIT.agent });

    // Policy "refuse": the request is refused by itself, and the Inbox shows the answer.
    await makeTask(page, { name: 'Refused tests', prompt: 'ask-run npm test', folder, policy: 'refuse' });
    await page.getByTestId('sidebar-open-inbox').click();
    const refused = inbox.locator(':scope > [data-testid=inbox-run][data-state=done]').filter({ hasText: 'Refused tests' });
    await refused.waitFor({ timeout: WAIT.agent });
    await refused.getByTestId('inbox-run-answers').click();
    await expect(refused.getByTestId('inbox-run-answer').first().innerText()).resolves.toMatch(/^Refused `npm test`/);
    expect(errors).toEqual([]);
  });

  it('holds the queue, reorders and cancels waiting runs, runs one at a time as Settings → Usage says; a finished run notifies only when wanted', async () => {
    const folder = join(suite.work, 'queue-project');
    mkdirSync(folder);
    const c = await connectContract(suite.app);
    const setting = async (key: string) => ((await c.call('settings.get', { key })) as { entry: { value: unknown } }).entry.value;
    const { page, errors } = await suite.open({ empty: true });
    const notes = await recordNotifications(page);
    await page.keyboard.press('Control+,');
    const concurrency = visible(page, 'settings-tab').getByTestId('setting-tasks.concurrency');
    await concurrency.fill('1');
    await concurrency.press('Enter');
    await visible(page, 'settings-tab').getByTestId('setting-notifications.taskFinished').uncheck();
    await expect.poll(() => setting('tasks.concurrency'), { timeout: WAIT.server }).toBe(1);
    await expect.poll(() => setting('notifications.taskFinished'), { timeout: WAIT.server }).toBe(false);

    await page.getByTestId('sidebar-open-tasks').click();
    const queue = visible(page, 'task-queue');
    await queue.getByTestId('task-queue-pause').click();
    await visible(page, 'task-queue').and(page.locator('[data-paused=true]')).waitFor({ timeout: WAIT.server });
    for (const name of ['First', 'Second', 'Third']) await makeTask(page, { name, prompt: 'hello', folder });
    const rows = queue.getByTestId('task-queue-row');
    const names = () => rows.evaluateAll((els) => els.map((e) => e.querySelector('strong')?.textContent));
    await expect.poll(names, { timeout: WAIT.server }).toEqual(['First', 'Second', 'Third']);
    await rows.filter({ hasText: 'First' }).getByTestId('task-queue-down').click();
    await expect.poll(names, { timeout: WAIT.server }).toEqual(['Second', 'First', 'Third']);
    await rows.filter({ hasText: 'Third' }).getByTestId('task-queue-cancel').click();
    await expect.poll(names, { timeout: WAIT.server }).toEqual(['Second', 'First']);

    await queue.getByTestId('task-queue-pause').click();
    await page.getByTestId('sidebar-open-inbox').click();
    const inbox = visible(page, 'inbox-tab');
    for (const name of ['First', 'Second']) await inbox.locator(':scope > [data-testid=inbox-run][data-state=done]').filter({ hasText: name }).waitFor({ timeout: WAIT.agent });
    const runs = ((await c.call('tasks.runs', { inbox: false })) as { runs: Array<{ name: string; state: string; startedAt: number | null; endedAt: number | null }> }).runs;
    const of = (name: string) => runs.find((r) => r.name === name)!;
    // One at a time, in the order the user left them: Second ended before First started; Third never ran.
    expect(of('Second').endedAt!).toBeLessThanOrEqual(of('First').startedAt!);
    expect(of('Third')).toMatchObject({ state: 'cancelled', startedAt: null });
    // Finished runs were not notified (switched off in Settings).
    expect((await notes()).filter((n) => n.includes('finished'))).toEqual([]);
    await c.call('settings.set', { key: 'tasks.concurrency', value: 2 });
    await c.call('settings.set', { key: 'notifications.taskFinished', value: true });
    c.close();
    expect(errors).toEqual([]);
  });

  it('three worktree runs queued at once (two at a time): the one at its limit pauses and notifies, goes on with +X; all end in the Inbox, one merged through Finish, one reverted', async () => {
    const repo = join(suite.work, 'three-project');
    mkdirSync(repo);
    initRepo(repo);
    const c = await connectContract(suite.app);
    const { page, errors } = await suite.open({ empty: true });
    const notes = await recordNotifications(page);
    await page.getByTestId('sidebar-open-tasks').click();
    const queue = visible(page, 'task-queue');
    await queue.getByTestId('task-queue-pause').click();
    await visible(page, 'task-queue').and(page.locator('[data-paused=true]')).waitFor({ timeout: WAIT.server });
    await makeTask(page, { name: 'Tree spender', prompt: 'spend 200 1000 -', folder: repo, place: 'worktree', runTokens: 3000 });
    await makeTask(page, { name: 'Tree A', prompt: 'sh-write a.txt from A', folder: repo, place: 'worktree' });
    await makeTask(page, { name: 'Tree B', prompt: 'sh-write b.txt from B', folder: repo, place: 'worktree' });
    await expect.poll(() => queue.getByTestId('task-queue-row').count(), { timeout: WAIT.server }).toBe(3);
    await queue.getByTestId('task-queue-pause').click();

    await page.getByTestId('sidebar-open-inbox').click();
    const inbox = visible(page, 'inbox-tab');
    const spender = inbox.locator(':scope > [data-testid=inbox-run][data-state=paused]').filter({ hasText: 'Tree spender' });
    await spender.waitFor({ timeout: WAIT.agent });
    await page.getByTestId('needs-you').waitFor({ timeout: WAIT.page });
    await expect.poll(notes, { timeout: WAIT.page }).toContain('Tree spender paused by its limit');
    type Run = { name: string; worktree: string | null; startedAt: number | null; endedAt: number | null; pause: { at: number } | null };
    const treeRuns = async () => ((await c.call('tasks.runs', { inbox: false })) as { runs: Run[] }).runs;
    const pausedAt = (await treeRuns()).find((r) => r.name === 'Tree spender')!.pause!.at;
    const pause = spender.getByTestId('task-pause');
    await pause.getByTestId('task-pause-more').fill('100000');
    await pause.getByTestId('task-pause-continue').click();
    const done = (name: string) => inbox.locator(':scope > [data-testid=inbox-run][data-state=done]').filter({ hasText: name });
    for (const name of ['Tree spender', 'Tree A', 'Tree B']) await done(name).waitFor({ timeout: WAIT.agent });

    const runs = (await treeRuns()).filter((r) => r.name.startsWith('Tree '));
    expect(runs).toHaveLength(3);
    // Two at a time, in queue order: B started only once the spender paused or A ended.
    const of = (name: string) => runs.find((r) => r.name === name)!;
    expect(of('Tree B').startedAt!).toBeGreaterThanOrEqual(Math.min(of('Tree A').endedAt!, pausedAt));
    expect(Math.max(of('Tree spender').startedAt!, of('Tree A').startedAt!)).toBeLessThanOrEqual(of('Tree B').startedAt!);

    // Merge A through Finish: main has a.txt.
    const a = done('Tree A');
    const bar = a.getByTestId('worktree-bar');
    const finish = a.getByTestId('worktree-finish');
    await commitFromFinish(bar, finish, 'a.txt', 'Add a');
    await finish.getByTestId('worktree-merge').click();
    await finish.getByTestId('worktree-note').getByText('main is now at').waitFor({ timeout: WAIT.server });
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('from A');
    await a.getByTestId('inbox-merged').click();

    // Revert B: the file it wrote is gone from its worktree, and main never had it.
    const bTree = runs.find((r) => r.name === 'Tree B')!.worktree!;
    expect(readFileSync(join(bTree, 'b.txt'), 'utf8')).toBe('from B');
    await done('Tree B').getByTestId('inbox-revert').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => existsSync(join(bTree, 'b.txt')), { timeout: WAIT.server }).toBe(false);
    expect(existsSync(join(repo, 'b.txt'))).toBe(false);
    const handled = inbox.getByTestId('inbox-handled');
    await handled.getByTestId('inbox-run').filter({ hasText: 'Tree A' }).getByTestId('inbox-run-handled').filter({ hasText: 'merged' }).waitFor({ timeout: WAIT.server });
    await handled.getByTestId('inbox-run').filter({ hasText: 'Tree B' }).getByTestId('inbox-run-handled').filter({ hasText: 'reverted' }).waitFor({ timeout: WAIT.server });
    await done('Tree spender').getByTestId('inbox-dismiss').click();
    c.close();
    expect(errors).toEqual([]);
  });

  it('an interactive session given a spend limit from its header pauses at it; a task set to run on new commits says so in words', async () => {
    const folder = join(suite.work, 'limited-project');
    mkdirSync(folder);
    initRepo(folder);
    const { page, errors } = await suite.open({ empty: true });
    const tab = await startSessionFromSidebar(page, agentRow(page, 'Task agent'), folder);
    await tab.getByTestId('session-action-spend-limit').click();
    const dialog = page.getByTestId('session-limit-dialog');
    await dialog.getByTestId('session-limit-tokens').fill('3000');
    await dialog.getByTestId('session-limit-save').click();
    await dialog.waitFor({ state: 'detached' });
    await sendPrompt(tab, 'spend 200 1000 -');
    await page.getByTestId('sidebar-open-inbox').click();
    const paused = visible(page, 'inbox-tab').locator(':scope > [data-testid=inbox-run][data-state=paused]');
    await expect.poll(() => paused.getByTestId('task-pause-words').innerText(), { timeout: WAIT.agent }).toMatch(/^Reached its limit of 3\.0k tokens/);
    await paused.getByTestId('task-pause-stop').click();
    await paused.waitFor({ state: 'detached', timeout: WAIT.server });

    await page.getByTestId('sidebar-open-tasks').click();
    const tasks = visible(page, 'tasks-tab');
    await tasks.getByTestId('task-new').click();
    const form = tasks.getByTestId('task-form');
    await form.getByTestId('task-name').fill('Review new commits');
    await form.getByTestId('task-prompt').fill('hello');
    await form.getByTestId('task-agent').selectOption({ label: 'Task agent' });
    await form.getByTestId('task-folder').fill(folder);
    // The folder's checked-out branch is offered (once it has been read).
    await form.getByTestId('task-on-commit').check();
    await expect.poll(() => form.getByTestId('task-on-commit-branch').inputValue(), { timeout: WAIT.server }).toBe('main');
    await expect.poll(() => form.getByTestId('task-on-commit-text').innerText(), { timeout: WAIT.page }).toMatch(/^Runs once for each new commit to main while Switchboard is open/);
    await form.getByTestId('task-save').click();
    await form.waitFor({ state: 'detached' });
    await tasks.getByTestId('task-row').filter({ hasText: 'Review new commits' }).getByTestId('task-row-on-commit').filter({ hasText: 'On each new commit to main' }).waitFor({ timeout: WAIT.page });
    expect(errors).toEqual([]);
  });

  it('lists the runs missed while Switchboard was closed at the next start, in "needs you": one runs now, one is skipped, none ran by itself', async () => {
    const folder = join(suite.work, 'missed-project');
    mkdirSync(folder);
    let c = await connectContract(suite.app);
    const agents = ((await c.call('agents.list', {})) as { agents: Array<{ id: string; name: string }> }).agents;
    const agentId = agents.find((a) => a.name === 'Task agent')!.id;
    const hour = 3_600_000;
    // Every hour, at half past the hours counted from now: due 1.5 h and 0.5 h ago once it was last looked at 2 h ago.
    const task = (await c.call('tasks.save', { task: { name: 'Hourly check', prompts: ['hello'], agentId, folder, schedule: { kind: 'hours', every: 1, from: Date.now() - 2.5 * hour } } })) as { id: string };
    c.close();
    const db = new Database(join(suite.dataDir, 'switchboard.db'));
    try {
      db.prepare('UPDATE tasks SET checked_at = checked_at - ? WHERE id = ?').run(2 * hour, task.id);
    } finally {
      db.close();
    }
    await suite.restart();
    c = await connectContract(suite.app);
    // What earlier tests left in the Inbox (none of it waits for an answer) counts too.
    const inInbox = ((await c.call('tasks.runs', { inbox: true })) as { runs: Array<{ state: string }> }).runs;
    expect(inInbox.filter((r) => r.state === 'paused' || r.state === 'running')).toEqual([]);
    c.close();
    const { page, errors } = await suite.open({ empty: true });
    // Two runs missed: "needs you" counts them, and leads first to the Tasks tab that lists them (they wait for an answer).
    await page.getByTestId('needs-you').filter({ hasText: `${inInbox.length + 2} need you` }).click({ timeout: WAIT.server });
    const missed = visible(page, 'task-missed');
    const rows = missed.getByTestId('task-missed-row');
    await expect.poll(() => rows.count(), { timeout: WAIT.server }).toBe(2);
    await rows.first().getByTestId('task-missed-skip').click();
    await expect.poll(() => rows.count(), { timeout: WAIT.server }).toBe(1);
    await rows.first().getByTestId('task-missed-run').click();
    await missed.waitFor({ state: 'detached', timeout: WAIT.server });
    await page.getByTestId('sidebar-open-inbox').click();
    await visible(page, 'inbox-tab').locator(':scope > [data-testid=inbox-run][data-state=done]').filter({ hasText: 'Hourly check' }).waitFor({ timeout: WAIT.agent });
    c = await connectContract(suite.app);
    const runs = ((await c.call('tasks.runs', { inbox: false })) as { runs: Array<{ name: string; trigger: string }> }).runs.filter((r) => r.name === 'Hourly check');
    expect(runs.map((r) => r.trigger)).toEqual(['missed']);
    await c.call('tasks.delete', { id: task.id });
    c.close();
    expect(errors).toEqual([]);
  });
});
