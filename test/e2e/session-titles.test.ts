import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { promptSummary } from '../../src/shared/session-title';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/** Issue 24: one session, one title, in its tab, the history list and the overview. */

const suite = appSuite('session-titles');

/** The session's title as its tab, the sidebar's history list and the overview show it. */
const titles = (page: Page, sessionId: string) =>
  Promise.all([
    page.getByTestId('pane').nth(0).locator('[role=tab][aria-selected=true] .tab-title').innerText(),
    page
      .locator(`[data-testid=history-row][data-session-id="${sessionId}"] [data-testid=history-open]`)
      .first()
      .innerText()
      .catch(() => '(not listed)'),
    page.locator(`[data-testid=overview-row][data-session-id="${sessionId}"] .overview-title`).innerText(),
  ]);

describe('session titles', { timeout: 180_000 }, () => {
  it('the same title in the tab, history and the overview: "<Agent> session", then the first prompt’s first line, then the agent’s title', async () => {
    // A 1000 px window, split in two: the session's pane is narrow.
    const { page, errors } = await suite.open({ empty: true, viewport: { width: 1000, height: 700 } });
    const name = `Titler ${Math.random().toString(36).slice(2, 7)}`;
    const tab = await startSessionFromSidebar(page, await addScenarioAgent(page, name), suite.work);
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    // The overview beside the session, in a pane of its own.
    await page.getByRole('button', { name: 'Split right' }).first().click();
    await page.locator('.pane.focused .tab-new').click();
    await page.locator('.pane.focused').getByTestId('launch-overview').click();
    await page.locator(`[data-testid=overview-row][data-session-id="${sessionId}"]`).waitFor();
    const tabTitle = () => titles(page, sessionId).then(([t]) => t);
    await expect.poll(tabTitle, { timeout: WAIT.page }).toBe(`${name} session`);
    // The narrow header keeps the agent's name clear of the pickers beside it (it ran under "Mode").
    // Its text fits its box, or is cut there (an ellipsis), never painted past it.
    const clear = await tab.getByTestId('session-agent').evaluate((el) => el.scrollWidth <= el.clientWidth + 1 || getComputedStyle(el).overflowX === 'hidden');
    expect(clear).toBe(true);
    const agentBox = (await tab.getByTestId('session-agent').boundingBox())!;
    expect(agentBox.x + agentBox.width).toBeLessThanOrEqual((await tab.locator('.config-options').boundingBox())!.x);
    expect((await titles(page, sessionId))[2]).toBe(`${name} session`);

    // A long prompt of several lines: its first line, cut at a word, never the raw text.
    const prompt = 'say Refactor the payment module so that every provider goes through one single interface\nthen run the tests\nand report';
    const summary = promptSummary(prompt)!;
    expect(summary.length).toBeLessThan(prompt.indexOf('\n'));
    await sendPrompt(tab, prompt);
    await tab.getByTestId('agent-message').filter({ hasText: 'Refactor the payment module' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => titles(page, sessionId), { timeout: WAIT.server }).toEqual([summary, summary, summary]);

    // The agent names it later, with a raw prompt's directives: its words replace the prompt's everywhere.
    await sendPrompt(tab, 'title "<context>x</context> /review Payments: one provider interface"');
    await tab.getByTestId('agent-message').filter({ hasText: 'titled' }).waitFor({ timeout: 30_000 });
    const given = 'Payments: one provider interface';
    await expect.poll(() => titles(page, sessionId), { timeout: WAIT.server }).toEqual([given, given, given]);
    expect(errors).toEqual([]);
  });
});
