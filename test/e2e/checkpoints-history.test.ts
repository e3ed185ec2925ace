import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Checkpoints of past sessions, end to end in Chromium: a session changes a file through the scenario
 * agent's own shell (a file the conversation never names), the session is closed, and its transcript,
 * opened from History, shows the turn's changes and opens their review; History's search finds the
 * session by the changed file's name. Once the folder is gone, the review is read-only.
 */

const suite = appSuite('cp-history');

const visible = (page: Page, testId: string) => page.locator(`.tab-panel:not([hidden]) [data-testid=${testId}]`);

describe("a past session's turn changes", () => {
  it('shows in its transcript, opens the review, is found by the file name, and is read-only once the folder is gone', async () => {
    const folder = join(suite.work, 'ledger-project');
    mkdirSync(folder);
    writeFileSync(join(folder, 'make.sh'), 'mkdir -p out && printf "totals\\n" > out/quarterly-ledger.txt\n');
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Shell Agent');
    const tab = await startSessionFromSidebar(page, row, folder);
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    await sendPrompt(tab, 'sh-run make.sh');
    await tab.getByTestId('agent-message').filter({ hasText: 'done' }).waitFor();
    await tab.getByTestId('turn-changes-open').filter({ hasText: '1 added' }).waitFor();
    expect(existsSync(join(folder, 'out', 'quarterly-ledger.txt'))).toBe(true);

    // Closing the tab ends the session; its transcript is opened from History.
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    await tab.waitFor({ state: 'detached' });
    await page.getByTestId('sidebar-history').locator(`[data-testid=history-row][data-session-id="${sessionId}"] [data-testid=history-open]`).click();
    const transcript = visible(page, 'transcript-tab');
    await transcript.getByTestId('transcript-entry').filter({ hasText: 'sh-run make.sh' }).waitFor();
    await transcript.getByTestId('turn-changes-open').filter({ hasText: '1 added' }).click();

    const review = visible(page, 'review-tab');
    await review.getByTestId('change-file').filter({ hasText: 'out/quarterly-ledger.txt' }).waitFor();
    await review.locator('[data-testid=monaco-diff][data-ready=true] .view-lines', { hasText: 'totals' }).first().waitFor();
    // The folder is still there: the turn can be reverted or rewound.
    await review.getByTestId('rewind-turn').waitFor();
    expect(await review.getByTestId('review-read-only').count()).toBe(0);

    // History's search finds the session by the name of the file, which no message mentions.
    await page.keyboard.press('Control+k');
    const input = page.getByTestId('history-search-input');
    await input.fill('quarterly-ledger.txt');
    await page.locator('[data-testid=history-hits][data-query="quarterly-ledger.txt"]').waitFor();
    const hits = page.getByTestId('history-hit');
    const found = await hits.evaluateAll((els) => els.map((e) => [e.getAttribute('data-session-id'), e.getAttribute('data-kind')]));
    expect(found).toEqual([[sessionId, 'changes']]);
    await expect(hits.first().innerText()).resolves.toContain('Changed files');
    // The hit opens the transcript at the turn that changed the file.
    await hits.first().click();
    await transcript.locator('[data-testid=transcript-entry][data-target=true]').filter({ hasText: 'sh-run make.sh' }).waitFor();

    // The folder is gone: the review still shows the changes, and offers no revert or rewind.
    rmSync(folder, { recursive: true, force: true });
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    await page.locator('[role=tab]', { hasText: /^Changes · \d/ }).locator('.tab-close').click();
    await page.getByTestId('sidebar-history').locator(`[data-testid=history-row][data-session-id="${sessionId}"] [data-testid=history-open]`).click();
    await transcript.getByTestId('turn-changes-open').filter({ hasText: '1 added' }).click();
    await review.getByTestId('review-read-only').filter({ hasText: 'no longer exists' }).waitFor();
    await review.getByTestId('change-file').filter({ hasText: 'out/quarterly-ledger.txt' }).click();
    await review.locator('[data-testid=monaco-diff][data-ready=true] .view-lines', { hasText: 'totals' }).first().waitFor();
    for (const id of ['rewind-turn', 'revert-all', 'revert-file', 'revert-hunk']) expect(await review.getByTestId(id).count(), id).toBe(0);
    expect(existsSync(folder)).toBe(false);
    expect(errors).toEqual([]);
  });
});
