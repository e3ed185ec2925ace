import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/** Context compaction (issue 14) in Chromium: a marker in the thread, its summary collapsed until opened, the same in History. */

const suite = appSuite('compaction');

const visible = (page: Page, testId: string) => page.locator(`.tab-panel:not([hidden]) [data-testid=${testId}]`);

describe('context compaction', { timeout: 120_000 }, () => {
  it('shows a "context compacted" marker with the summary collapsed, live and in the transcript', async () => {
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Compacting Agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    await sendPrompt(tab, 'compact');
    await tab.getByTestId('agent-message').filter({ hasText: 'Compacted.' }).waitFor();

    const marker = tab.locator('[data-testid=compaction][data-status=completed]');
    await expect(marker.innerText()).resolves.toContain('Context compacted');
    expect(await marker.getByTestId('compaction-summary').count()).toBe(0);
    await marker.getByRole('button').click();
    await marker.getByTestId('compaction-summary').filter({ hasText: 'The user asked for a summary of earlier work.' }).waitFor();

    // Closed, the session's transcript shows the same marker.
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    await tab.waitFor({ state: 'detached' });
    await page.getByTestId('sidebar-history').locator(`[data-testid=history-row][data-session-id="${sessionId}"] [data-testid=history-open]`).click();
    const stored = visible(page, 'transcript-tab').locator('[data-testid=compaction][data-status=completed]');
    await expect(stored.innerText()).resolves.toContain('Context compacted');
    await stored.getByRole('button').click();
    await stored.getByTestId('compaction-summary').filter({ hasText: 'The user asked for a summary of earlier work.' }).waitFor();
    expect(errors).toEqual([]);
  });
});
