import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, agentRow } from '../support/ui';

/**
 * An agent slow to start (Qwen's `initialize` takes ~27 s) is shown as starting, by name, with the time so
 * far and a Cancel: in the tab that starts it, and in a tab opened on it meanwhile (another window).
 */

const suite = appSuite('slow-start');

describe('a slow agent start', { timeout: 120_000 }, () => {
  it('says "Starting <agent>…" with the time so far and Cancel, also in another window; never "Session" / "Loading the conversation…"', async () => {
    const name = `Slowpoke ${Math.random().toString(36).slice(2, 7)}`;
    const { page } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, name, 'SCENARIO_HANG_INIT=1');
    await row.getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-folder').fill(suite.work);
    await dialog.getByTestId('new-session-start').click();

    const panel = page.locator('.tab-panel:not([hidden])').getByTestId('starting-panel');
    await panel.waitFor({ timeout: 30_000 });
    expect(await panel.innerText()).toContain(`Starting ${name}`);
    const first = await panel.getByTestId('elapsed').innerText();
    expect(first).toMatch(/^\d+ s$/);
    await expect.poll(() => panel.getByTestId('elapsed').innerText(), { timeout: 10_000 }).not.toBe(first);

    // Another window opens the session while its agent starts.
    const other = await suite.open({ empty: true });
    const otherRow = agentRow(other.page, name);
    await otherRow.locator('.agent-name').click();
    await otherRow.locator('.agent-sessions button').first().click({ timeout: 30_000 });
    const otherPanel = other.page.locator('.tab-panel:not([hidden])').getByTestId('starting-panel');
    await otherPanel.waitFor({ timeout: 30_000 });
    expect(await otherPanel.innerText()).toContain(`Starting ${name}`);
    await expect.poll(() => otherPanel.getByTestId('elapsed').innerText(), { timeout: 10_000 }).toMatch(/^\d+ s$/);
    expect(await other.page.locator('[role=tab]').allInnerTexts()).not.toContain('Session');
    expect(await other.page.getByText('Loading the conversation…').count()).toBe(0);

    // Cancel gives up on it: the tab goes, and the first window's too.
    await otherPanel.getByTestId('session-starting-cancel').click();
    await expect.poll(() => other.page.getByTestId('starting-panel').count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('starting-panel').count(), { timeout: 30_000 }).toBe(0);
  });
});
