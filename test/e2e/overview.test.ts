import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { setSetting } from '../support/contract-client';
import { activeSession, addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/** The overview of live sessions, and an agent crash as the user sees it (restarted on its own). */

// Restart delay: long enough to read the notice on a busy machine.
const suite = appSuite('overview', (app) => setSetting(app, 'agents.restartDelaySeconds', 3));
const open = async () => (await suite.open()).page;

describe('overview and supervision', { timeout: 120_000 }, () => {
  it('lists live sessions with their state and turn time; a click focuses the session', async () => {
    const page = await open();
    const r = await addScenarioAgent(page, 'Overviewed', '');
    const tab = await startSessionFromSidebar(page, r, suite.work);
    const sessionId = await tab.getAttribute('data-session-id');
    await sendPrompt(tab, 'slow');
    await tab.and(page.locator('[data-status=working]')).waitFor();

    // The launcher's action opens the overview.
    await page.keyboard.press('Control+t');
    await page.locator('.tab-panel:not([hidden])').getByTestId('launch-overview').click();
    const overview = page.locator('.tab-panel:not([hidden]) [data-testid=overview]');
    const row = overview.locator(`[data-testid=overview-row][data-session-id="${sessionId}"]`);
    await row.and(page.locator('[data-state=working]')).waitFor();
    await expect(row.innerText()).resolves.toMatch(/Overviewed/);
    await expect(row.innerText()).resolves.toContain(basename(suite.work));
    await expect(row.getByTestId('overview-state').innerText()).resolves.toMatch(/working/);
    await expect.poll(() => row.getByTestId('overview-elapsed').innerText(), { timeout: 15_000 }).toMatch(/^\d+s$/);
    // The agent's memory shows, small, in the sidebar.
    await r.getByTestId('agent-metrics').filter({ hasText: /\d+ MB/ }).waitFor({ timeout: 15_000 });

    await row.click();
    await activeSession(page).and(page.locator(`[data-session-id="${sessionId}"]`)).waitFor();
    await activeSession(page).getByTestId('prompt-input').press('Escape');
    await activeSession(page).and(page.locator('[data-status=idle]')).waitFor();

    // Back in the overview (shortcut), the session is idle and the turn time gone.
    await page.keyboard.press('Control+Shift+O');
    await row.and(page.locator('[data-state=idle]')).waitFor();
    await expect(row.getByTestId('overview-elapsed').innerText()).resolves.toBe('');
    // The context the agent reports using (usage_update: 1,200 of 200,000 tokens).
    await expect(row.getByTestId('overview-context').innerText()).resolves.toBe('');
    await row.click();
    await sendPrompt(activeSession(page), 'updates');
    await activeSession(page).getByTestId('agent-message').filter({ hasText: 'Done.' }).waitFor();
    await page.keyboard.press('Control+Shift+O');
    await expect.poll(() => row.getByTestId('overview-context').innerText(), { timeout: WAIT.server }).toBe('1%');
    await expect(row.getByTestId('overview-context').getAttribute('title')).resolves.toBe('1,200 of 200,000 tokens');
  });

  it('an agent that crashes comes back on its own and the session continues', async () => {
    const page = await open();
    const r = await addScenarioAgent(page, 'Crashy', 'SCENARIO_CAPS=resume');
    const tab = await startSessionFromSidebar(page, r, suite.work);
    await sendPrompt(tab, 'crash');
    // The user is told what happened and that it restarts…
    await tab.getByTestId('session-failed').filter({ hasText: /exited unexpectedly \(exit code 3\); restarting it in 3 s \(attempt 1 of 5\)/ }).waitFor();
    // …and the session is back without anyone pressing Restart.
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    await expect(tab.getByTestId('session-failed').count()).resolves.toBe(0);
    await sendPrompt(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    // The sidebar keeps the last exit for the curious.
    await r.locator('.agent-name').click();
    await r.getByTestId('agent-last-exit').filter({ hasText: 'Last exit: code 3' }).waitFor();
  });
});
