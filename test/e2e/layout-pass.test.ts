import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/** The layout pass: what a user meets in a real window. */

const suite = appSuite('layout-pass');
const uniq = () => Math.random().toString(36).slice(2, 7);

describe('layout pass', { timeout: 180_000 }, () => {
  it('a 2 MB paste is refused in words, its word goes with the cleared box, and it can be attached as a file', async () => {
    const folder = tempDir('sb-paste-');
    const { page } = await suite.open({ empty: true });
    const tab = await startSessionFromSidebar(page, await addScenarioAgent(page, `Paster ${uniq()}`), folder);
    const input = tab.getByTestId('prompt-input');
    const paste = () =>
      input.evaluate((el) => {
        const dt = new DataTransfer();
        dt.setData('text/plain', 'x'.repeat(2_100_000));
        el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      });
    await paste();
    const hint = tab.getByTestId('composer-hint');
    await hint.waitFor();
    expect(await hint.innerText()).toContain('a message holds at most 2,000,000 characters');
    expect(await hint.innerText()).not.toMatch(/String must|too_big|invalid/i);
    expect(await input.inputValue()).toBe('');
    // Typed, then cleared: the word about the paste goes with it.
    await input.fill('a');
    await input.fill('');
    await expect.poll(() => hint.count(), { timeout: 5_000 }).toBe(0);

    await paste();
    await tab.getByTestId('composer-hint-action').click();
    await hint.filter({ hasText: 'Saved as pasted-' }).waitFor({ timeout: 30_000 });
    const saved = readdirSync(folder).filter((f) => f.startsWith('pasted-'));
    expect(saved).toHaveLength(1);
    expect(statSync(join(folder, saved[0]!)).size).toBe(2_100_000);
    await sendPrompt(tab, 'echo here is the log');
    await tab.getByTestId('agent-message').filter({ hasText: 'here is the log' }).waitFor({ timeout: 30_000 });
  });

  it('a command with no output shows no empty terminal box, and its exit in words', async () => {
    const { page } = await suite.open({ empty: true });
    const tab = await startSessionFromSidebar(page, await addScenarioAgent(page, `Quiet ${uniq()}`), suite.work);
    await sendPrompt(tab, `terminal ${JSON.stringify({ command: 'true' })}`);
    const terminal = tab.getByTestId('agent-terminal').last();
    await terminal.getByText('Process exited with code 0').waitFor({ timeout: 30_000 });
    await terminal.getByTestId('terminal-no-output').waitFor();
    expect(await terminal.locator('.agent-terminal-host').isVisible()).toBe(false);
  });

  it('the new tab offers an agent session first; the sidebar folds away and back; Monaco draws with its bundled codicon font', async () => {
    const { page } = await suite.open({ empty: true });
    await page.locator('.tab-new').click();
    const launcher = page.locator('.tab-panel:not([hidden])').getByTestId('launcher');
    const first = launcher.locator(':scope > :not(h1)').first();
    expect(await first.getAttribute('data-testid')).toBe('launcher-new-session');

    await page.getByTestId('sidebar-toggle').click();
    await page.locator('[data-testid=sidebar][data-collapsed=true]').waitFor();
    expect(await page.getByTestId('sidebar-agents').count()).toBe(0);
    await page.getByTestId('sidebar-toggle').click();
    await page.getByTestId('sidebar-agents').waitFor();

    const tab = await startSessionFromSidebar(page, await addScenarioAgent(page, `Differ ${uniq()}`), suite.work);
    await sendPrompt(tab, 'diff-replace');
    await tab.locator('[data-testid=monaco-diff][data-ready=true]').first().waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.evaluate(async () => (await document.fonts.load('16px codicon')).length > 0), { timeout: 30_000 })
      .toBe(true);
  });
});
