import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, agentRow, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';
import { holdAnswers } from '../support/ws-hold';

/** The new-session dialog's folder field: its default (the most recent folder), what the user types, what it refuses. */

const suite = appSuite('new-session');

/** Holds the app's answer to its read of the recent folders until `release`, as a slow store would. */
const holdRecentFolders = (context: BrowserContext) =>
  holdAnswers(context, (f) => f.method === 'settings.get' && (f.params as { key?: string }).key === 'sessions.recentFolders');

describe('new session dialog', { timeout: 90_000 }, () => {
  it('a folder typed while the recent folders load is kept as typed; the last folder is the next default', async () => {
    const first = await suite.open({ empty: true });
    const r = await addScenarioAgent(first.page, 'Folders');
    // A first session makes the suite's folder the most recent one.
    await startSessionFromSidebar(first.page, r, suite.work);
    await first.context.close();

    let hold: Awaited<ReturnType<typeof holdRecentFolders>> | undefined;
    const { page } = await suite.open({ empty: true, prepare: async (c) => void (hold = await holdRecentFolders(c)) });
    await agentRow(page, 'Folders').getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    const folder = dialog.getByTestId('new-session-folder');
    await hold!.asked;
    // Until its default is known the field takes no input: what the user types cannot mix with it.
    await expect(folder.getAttribute('readonly')).resolves.not.toBeNull();
    const typing = folder.fill('/srv/typed/by/hand');
    await new Promise((r) => setTimeout(r, 300));
    hold!.release();
    await typing;
    await expect(folder.inputValue()).resolves.toBe('/srv/typed/by/hand');
    // The recent folders came in as chips; the suite's folder is one, not chosen since the user typed another.
    const chip = dialog.locator(`.recent-folder .chip[title="${suite.work}"]`);
    await chip.waitFor();
    await expect(chip.getAttribute('class')).resolves.not.toMatch(/\bon\b/);

    // Opened again, with nothing typed, the most recent folder is the default.
    await dialog.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await agentRow(page, 'Folders').getByTestId('agent-new-session').click();
    await expect.poll(() => folder.inputValue(), { timeout: WAIT.page }).toBe(suite.work);
    await expect(folder.getAttribute('readonly')).resolves.toBeNull();

    // A relative path is refused with a reason, and no session starts.
    await folder.fill('relative/path');
    await dialog.getByTestId('new-session-start').click();
    await dialog.getByRole('alert').filter({ hasText: 'Use a full path' }).waitFor();
    await expect(page.locator('[data-testid=session-starting], [data-testid=session-tab]').count()).resolves.toBe(0);
  });
});
