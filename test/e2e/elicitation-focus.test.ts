import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract, type ContractClient } from '../support/contract-client';
import { addScenarioAgent, sendPrompt, tabButtonOf, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Where an elicitation form stands in the tab: it takes the keyboard when it comes in and nothing else has
 * it (never from a prompt being typed), or when its tab is shown; and one asked during a tool call links to
 * that tool call in the thread.
 */

const suite = appSuite('elicitation-focus');
let client: ContractClient;
beforeAll(async () => {
  client = await connectContract(suite.app);
});
afterAll(() => client?.close());

const FORM = {
  mode: 'form',
  message: 'Which project?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Project name' }, port: { type: 'integer', title: 'Port' } }, required: ['name'] },
};

/** The agent of the session is asked, from outside the page, to elicit `params` (the page's focus stays where it is). */
async function askFromAgent(tab: Locator, params: object): Promise<void> {
  const sessionId = await tab.getAttribute('data-session-id');
  await client.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: `elicit ${JSON.stringify(params)}` }] });
}

/** What has the keyboard: the data-testid and name of the focused element and of its field. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return { testid: a?.getAttribute('data-testid') ?? a?.tagName ?? null, field: a?.closest('[data-testid=elicit-field]')?.getAttribute('data-name') ?? null };
  });

async function session(name: string) {
  const opened = await suite.open({ empty: true });
  const row = await addScenarioAgent(opened.page, name);
  const tab = await startSessionFromSidebar(opened.page, row, suite.work);
  return { ...opened, row, tab };
}

describe('elicitation focus', { timeout: 120_000 }, () => {
  it('a form that comes in while nothing has the keyboard gets it on its first field; typing goes into it', async () => {
    const { page, tab } = await session(`Focus ${Math.random().toString(36).slice(2, 7)}`);
    await tab.getByTestId('thread').click();
    await askFromAgent(tab, FORM);
    const card = tab.getByTestId('elicitation');
    await card.getByTestId('elicit-form').waitFor();
    await expect.poll(() => focused(page), { timeout: WAIT.page }).toEqual({ testid: 'INPUT', field: 'name' });
    await page.keyboard.type('demo');
    await page.keyboard.press('Enter');
    await tab.getByTestId('agent-message').filter({ hasText: 'elicitation: {"ok":true,"result":{"action":"accept","content":{"name":"demo"}}}' }).waitFor();
    // Answered: the keyboard is back in the prompt.
    await expect.poll(() => focused(page), { timeout: WAIT.page }).toEqual({ testid: 'prompt-input', field: null });
  });

  it('takes the keyboard from the prompt left empty after sending, as a permission request does', async () => {
    const { page, tab } = await session(`Sent ${Math.random().toString(36).slice(2, 7)}`);
    const input = tab.getByTestId('prompt-input');
    await input.click();
    await page.keyboard.type(`elicit ${JSON.stringify(FORM)}`);
    await page.keyboard.press('Enter');
    await tab.getByTestId('elicit-form').waitFor();
    await expect.poll(() => focused(page), { timeout: WAIT.page }).toEqual({ testid: 'INPUT', field: 'name' });
    expect(await input.inputValue()).toBe('');
  });

  it('does not take the keyboard from a prompt being typed', async () => {
    const { page, tab } = await session(`Typing ${Math.random().toString(36).slice(2, 7)}`);
    const input = tab.getByTestId('prompt-input');
    await input.click();
    await page.keyboard.type('half a thought');
    await askFromAgent(tab, FORM);
    await tab.getByTestId('elicit-form').waitFor();
    // The frames in which the form would have taken the keyboard (it tries for 20 after it comes in).
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          let n = 24;
          const next = () => (--n > 0 ? requestAnimationFrame(next) : resolve());
          requestAnimationFrame(next);
        }),
    );
    await page.keyboard.type(', and more');
    expect(await input.inputValue()).toBe('half a thought, and more');
    expect(await focused(page)).toEqual({ testid: 'prompt-input', field: null });
  });

  it('a form asked in a tab that is not shown takes the keyboard when its tab is shown', async () => {
    const a = `Hidden ${Math.random().toString(36).slice(2, 7)}`;
    const { page, tab } = await session(a);
    const other = await addScenarioAgent(page, `Other ${Math.random().toString(36).slice(2, 7)}`);
    const shown = await startSessionFromSidebar(page, other, suite.work);
    expect(await tab.isVisible()).toBe(false);
    await shown.getByTestId('prompt-input').click();
    await askFromAgent(tab, FORM);
    const tabOfA = await tabButtonOf(page, tab);
    await tabOfA.and(page.locator('.status-attention')).waitFor();
    // Typing in the shown session's prompt: the hidden form does not take it.
    expect((await focused(page)).testid).toBe('prompt-input');
    await tabOfA.click();
    await expect.poll(() => focused(page), { timeout: WAIT.page }).toEqual({ testid: 'INPUT', field: 'name' });
  });
});

describe('elicitation asked during a tool call', { timeout: 120_000 }, () => {
  it('names the tool call and scrolls to it', async () => {
    const { page, tab } = await session(`Tool ${Math.random().toString(36).slice(2, 7)}`);
    await sendPrompt(tab, 'updates');
    const tool = tab.locator('[data-testid=tool-call][data-tool-call-id=t1]');
    await tool.waitFor();
    // Enough conversation after it that the tool call is scrolled out of view.
    await sendPrompt(tab, `say ${Array.from({ length: 40 }, (_, i) => `Paragraph ${i}.`).join('\n\n')}`);
    await tab.getByTestId('agent-message').filter({ hasText: 'Paragraph 39.' }).waitFor();
    const inView = async () => {
      const box = await tool.boundingBox().catch(() => null);
      const view = await tab.getByTestId('thread').boundingBox();
      return box !== null && view !== null && box.y + box.height > view.y && box.y < view.y + view.height;
    };
    await expect.poll(inView, { timeout: WAIT.page }).toBe(false);
    await sendPrompt(tab, `elicit ${JSON.stringify({ ...FORM, toolCallId: 't1' })}`);
    const card = tab.getByTestId('elicitation');
    const link = card.getByTestId('elicit-tool-link');
    await link.waitFor();
    expect(await link.innerText()).toBe('Read file');
    await link.click();
    await expect.poll(inView, { timeout: WAIT.page }).toBe(true);

    // A tool call that is not in the thread is named by its id, with nothing to follow.
    await tab.getByRole('button', { name: '↓ Latest' }).click();
    await card.getByTestId('elicit-decline').click();
    await tab.getByTestId('agent-message').filter({ hasText: 'elicitation: {"ok":true,"result":{"action":"decline"}}' }).waitFor();
    await sendPrompt(tab, `elicit ${JSON.stringify({ ...FORM, toolCallId: 'elsewhere' })}`);
    const second = tab.locator('[data-testid=elicitation][data-state=pending]');
    await second.getByTestId('elicit-tool').filter({ hasText: 'elsewhere' }).waitFor();
    expect(await second.getByTestId('elicit-tool-link').count()).toBe(0);
    await page.keyboard.press('Escape');
  });
});
