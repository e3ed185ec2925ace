import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { WAIT } from '../support/waits';

/**
 * Issue 4 "Restore", end to end in Chromium: a session is made with the scenario agent (which keeps its
 * sessions in a file, as a real agent does), the app server is stopped and a new one started on the same
 * data dir; the session is reopened from History as a live tab showing its old messages once, takes a new
 * prompt, and reopens again after the agent was "updated" (its command line changed).
 */

const AGENT = 'Restorable Agent';
const suite = appSuite('restore');
let work = '';
let agentStore = '';
beforeEach(() => {
  work = suite.work;
  agentStore = join(work, '.agent-sessions.json');
});

async function open(): Promise<Page> {
  return (await suite.open()).page;
}

/** The app quits and starts again on the same data folder. */
async function restartServer(): Promise<void> {
  await suite.restart();
}

const sessionTab = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');

async function send(tab: Locator, text: string): Promise<void> {
  const input = tab.getByTestId('prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await expect.poll(() => input.inputValue(), { timeout: WAIT.page }).toBe('');
}

describe('restoring a past session', { timeout: 180_000 }, () => {
  it('reopens a session after an app restart and after an agent update, with its old messages once', async () => {
    // ── First run: make a session.
    let page = await open();
    const { command, args } = scenarioAgentCommand();
    const sidebar = page.getByTestId('sidebar-agents');
    await sidebar.locator('[data-testid=agent-row], [data-testid=agents-empty]').first().waitFor();
    await sidebar.getByTestId('add-custom-agent').click();
    const form = page.getByTestId('agent-form');
    await form.getByTestId('agent-name').fill(AGENT);
    await form.getByTestId('agent-command').fill(command);
    await form.getByTestId('agent-args').fill(args.join('\n'));
    await form.getByTestId('agent-env').fill(`SCENARIO_CAPS=loadSession,list,close\nSCENARIO_STORE=${agentStore}`);
    await form.getByTestId('agent-save').click();
    await form.waitFor({ state: 'detached' });
    await page.locator('.pane.focused .tab-new').click();
    const launcher = page.locator('.tab-panel:not([hidden])').getByTestId('launcher-new-session');
    await launcher.getByTestId('new-session-agent').selectOption({ label: AGENT });
    await launcher.getByTestId('new-session-folder').fill(work);
    await launcher.getByTestId('new-session-start').click();
    let tab = sessionTab(page);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    await send(tab, 'echo kestrel-question');
    await tab.getByTestId('agent-message').filter({ hasText: 'kestrel-question' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();

    // ── Second run on the same data dir: reopen it from History.
    await restartServer();
    page = await open();
    await page.getByTestId('history-open-tab').click();
    const history = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    const row = history.getByTestId('history-row').first();
    await row.waitFor();
    await row.getByTestId('history-reopen').click();
    tab = sessionTab(page);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    await page.getByText(/live again: .* loaded \(session\/load\)/).first().waitFor();
    // The old conversation is there, once.
    await tab.getByTestId('user-message').filter({ hasText: 'echo kestrel-question' }).waitFor();
    await expect.poll(() => tab.getByTestId('user-message').filter({ hasText: 'kestrel-question' }).count(), { timeout: WAIT.server }).toBe(1);
    await expect.poll(() => tab.getByTestId('agent-message').filter({ hasText: 'kestrel-question' }).count(), { timeout: WAIT.server }).toBe(1);
    await send(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();

    // ── "Update" the agent (a new version on its command line), restart, reopen from the transcript.
    const agentRow = page.getByTestId('sidebar-agents').getByTestId('agent-row').filter({ hasText: AGENT });
    await agentRow.locator('.agent-name').click();
    await agentRow.getByTestId('agent-details').waitFor();
    await agentRow.getByTestId('agent-edit').click();
    const editForm = page.getByTestId('agent-form');
    await editForm.getByTestId('agent-args').fill([...args, '--agent-version=2.0.0'].join('\n'));
    await editForm.getByTestId('agent-save').click();
    await editForm.waitFor({ state: 'detached' });
    await restartServer();
    page = await open();
    await page.getByTestId('history-open-tab').click();
    const row2 = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]').getByTestId('history-row').first();
    await row2.getByTestId('history-open').click();
    const transcript = page.locator('.tab-panel:not([hidden]) [data-testid=transcript-tab]');
    await transcript.locator('[data-testid=transcript-reopen-plan][data-mode=load]').waitFor({ timeout: 30_000 });
    await expect(transcript.getByTestId('transcript-reopen-plan').innerText()).resolves.toContain('session/load');
    await transcript.getByTestId('transcript-restore').click();
    tab = sessionTab(page);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    await expect.poll(() => tab.getByTestId('user-message').filter({ hasText: 'kestrel-question' }).count(), { timeout: WAIT.server }).toBe(1);
    await expect.poll(() => tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).count(), { timeout: WAIT.server }).toBe(1);
    await send(tab, 'echo osprey-answer');
    await tab.getByTestId('agent-message').filter({ hasText: 'osprey-answer' }).waitFor();
  });

  it("lists an agent's own sessions page by page and imports one as a live session", async () => {
    const listed = join(work, '.listed-sessions.json');
    const at = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    writeFileSync(
      listed,
      JSON.stringify(
        [1, 2, 3].map((i) => ({
          id: `ext-${i}`,
          cwd: work,
          title: `Started elsewhere ${i}`,
          updatedAt: at(i),
          history: [
            { role: 'user', text: `heron question ${i}` },
            { role: 'agent', text: `heron answer ${i}` },
          ],
        })),
      ),
    );
    const page = await open();
    const { command, args } = scenarioAgentCommand();
    const sidebar = page.getByTestId('sidebar-agents');
    await sidebar.locator('[data-testid=agent-row], [data-testid=agents-empty]').first().waitFor();
    await sidebar.getByTestId('add-custom-agent').click();
    const form = page.getByTestId('agent-form');
    await form.getByTestId('agent-name').fill('Lister');
    await form.getByTestId('agent-command').fill(command);
    await form.getByTestId('agent-args').fill(args.join('\n'));
    await form.getByTestId('agent-env').fill(`SCENARIO_CAPS=loadSession,list\nSCENARIO_STORE=${listed}\nSCENARIO_LIST_PAGE=2`);
    await form.getByTestId('agent-save').click();
    await form.waitFor({ state: 'detached' });

    await page.getByTestId('history-open-tab').click();
    const history = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    await history.getByTestId('history-agent-sessions-toggle').click();
    const view = history.getByTestId('agent-sessions');
    await view.getByTestId('agent-sessions-agent').selectOption({ label: 'Lister' });
    await view.getByTestId('agent-sessions-list').click();
    const rows = view.getByTestId('agent-session-row');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
    await view.getByTestId('agent-sessions-more').click();
    await expect.poll(() => rows.count(), { timeout: WAIT.server }).toBe(3);
    await expect(view.getByTestId('agent-sessions-more').count()).resolves.toBe(0);

    await view.locator('[data-acp-session-id=ext-2]').getByTestId('agent-session-import').click();
    const tab = sessionTab(page);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    await tab.getByTestId('user-message').filter({ hasText: 'heron question 2' }).waitFor();
    await expect.poll(() => tab.getByTestId('agent-message').filter({ hasText: 'heron answer 2' }).count(), { timeout: WAIT.agent }).toBe(1);
    await send(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();

    // Back in the list it is marked as a Switchboard session, and it is in the History.
    await page.getByTestId('history-open-tab').click();
    await expect(view.locator('[data-acp-session-id=ext-2]').getByTestId('agent-session-import').innerText()).resolves.toBe('Reopen');
    await history.getByTestId('history-agent-sessions-toggle').click();
    await history.getByTestId('history-row').filter({ hasText: 'Started elsewhere 2' }).waitFor();
  });
});
