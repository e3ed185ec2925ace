import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { startAppServer, tempDir } from '../support/app-server';
import { launchBrowser, openApp } from '../support/browser';
import { connectContract, type ContractClient } from '../support/contract-client';
import { activeSession, addScenarioAgent, agentRow, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Every wait for the user is visible wherever it is: a request in a compare run or a tab not shown counts in
 * "needs you" and says where it is, the compare run's time does not count the wait, Ctrl+J puts the keyboard
 * on the request (a digit then answers it), and a server that went away is said everywhere.
 */

const suite = appSuite('waits');
let client: ContractClient;
beforeAll(async () => {
  client = await connectContract(suite.app);
});
afterAll(() => client?.close());

const needsYou = (page: Page) => page.getByTestId('needs-you');
/** What has the keyboard: the data-testid of the focused element or of the card around it. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a?.closest('[data-testid=permission-card]') ? 'permission-card' : (a?.getAttribute('data-testid') ?? (a?.tagName ?? '') + '.' + (a?.className ?? ''));
  });

describe('waits for the user', { timeout: 180_000 }, () => {
  it('a permission asked in a compare run: "needs you" in the table and the sidebar, its time stops, one click answers it', async () => {
    const repo = realpathSync(tempDir('sb-waits-repo-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# project\n');
    git('add', '-A');
    git('commit', '-qm', 'init');
    const { command, args } = scenarioAgentCommand();
    const name = `Comparer ${Math.random().toString(36).slice(2, 7)}`;
    await client.call('agents.addCustom', { name, command, args, env: {} });

    const { page } = await suite.open({ empty: true });
    await page.locator('.tab-new').click();
    await page.getByTestId('launch-compare').click();
    await page.getByTestId('compare-repo').fill(repo);
    await page.getByTestId('compare-prompt').fill('permission edit');
    await page.getByRole('checkbox', { name }).check();
    await page.getByTestId('compare-start').click();
    await page.getByTestId('compare-view').waitFor({ timeout: 60_000 });

    // No session tab is open, yet the request is counted and the table says where it is.
    const row = page.getByTestId('compare-row').filter({ hasText: name });
    await row.getByTestId('compare-needs-you').waitFor({ timeout: 60_000 });
    expect(await row.innerText()).not.toContain('working…');
    await expect.poll(() => needsYou(page).innerText(), { timeout: 10_000 }).toBe('1 needs you');
    expect(await page.locator('[data-testid=session-tab]').count()).toBe(0);

    // The Time column does not count the wait: it stands still while the agent waits for the user.
    const time = row.locator('td').nth(2);
    const before = await time.innerText();
    await page.waitForTimeout(2_500);
    expect(await time.innerText()).toBe(before);

    // "needs you" shows the session with the keyboard on its card: "1" answers with the first option.
    await row.getByTestId('compare-needs-you').click();
    const session = activeSession(page);
    await session.getByTestId('permission-card').waitFor();
    await expect.poll(() => focused(page), { timeout: 10_000 }).toBe('permission-card');
    await page.keyboard.press('1');
    await session.getByTestId('agent-message').filter({ hasText: 'permission: selected yes-just-once' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => needsYou(page).count(), { timeout: 10_000 }).toBe(0);
  });

  it('Ctrl+J shows the session waiting in a hidden tab and puts the keyboard on its card: a digit answers, the prompt stays empty', async () => {
    const { page } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, `Waiter ${Math.random().toString(36).slice(2, 7)}`);
    const waiting = await startSessionFromSidebar(page, row, suite.work);
    const other = await startSessionFromSidebar(page, row, suite.work);
    // The user types in the other session's prompt while the first one, not shown, asks.
    const otherInput = other.getByTestId('prompt-input');
    await otherInput.click();
    await client.call('sessions.prompt', { sessionId: await waiting.getAttribute('data-session-id'), prompt: [{ type: 'text', text: 'permission edit' }] });
    await expect.poll(() => needsYou(page).innerText(), { timeout: 30_000 }).toBe('1 needs you');
    expect(await waiting.isVisible()).toBe(false);

    await page.keyboard.press('Control+j');
    await waiting.getByTestId('permission-card').waitFor();
    await expect.poll(() => focused(page), { timeout: 10_000 }).toBe('permission-card');
    await page.keyboard.press('2');
    await waiting.getByTestId('agent-message').filter({ hasText: 'permission: selected yes-forever' }).waitFor({ timeout: 30_000 });
    expect(await waiting.getByTestId('prompt-input').inputValue()).toBe('');
    expect(await otherInput.inputValue()).toBe('');
  });

  it('a server that goes away: "disconnected" in the banner, the session and the agents, no sending; back when it is', async () => {
    const dataDir = tempDir('sb-waits-data-');
    let server = await startAppServer({ dataDir });
    const { port, token } = server;
    const browser = await launchBrowser();
    try {
      const { page } = await openApp(browser, server.url);
      {
        await page.getByTestId('workspace').waitFor({ timeout: 60_000 });
        const name = `Gone ${Math.random().toString(36).slice(2, 7)}`;
        const agent = await addScenarioAgent(page, name);
        const tab = await startSessionFromSidebar(page, agent, suite.work);
        await sendPrompt(tab, 'hello');
        await tab.getByTestId('agent-message').first().waitFor({ timeout: 30_000 });
        await agentRow(page, name).and(page.locator('[data-state=running]')).waitFor({ timeout: 30_000 });

        await server.stop();
        await page.getByTestId('disconnected').waitFor({ timeout: 30_000 });
        expect(await tab.getByTestId('session-status').innerText()).toBe('Disconnected');
        expect(await agentRow(page, name).getAttribute('data-state')).toBe('disconnected');
        await tab.getByTestId('prompt-input').fill('not sent');
        expect(await tab.getByTestId('send-button').isDisabled()).toBe(true);

        // Back at the same address: the page reconnects by itself.
        server = await startAppServer({ dataDir, port, token });
        await page.getByTestId('disconnected').waitFor({ state: 'detached', timeout: 60_000 });
        await page.getByTestId('workspace').waitFor({ timeout: 60_000 });
        await agentRow(page, name).waitFor({ timeout: 30_000 });
        expect(await agentRow(page, name).getAttribute('data-state')).not.toBe('disconnected');
      }
    } finally {
      await browser.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

