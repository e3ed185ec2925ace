import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { activeSession, addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Session fork (issue 14), end to end in Chromium: "Fork from here" on the last prompt opens the fork in a
 * new tab, which says what it was forked from and goes on from the parent's conversation; History links the
 * two both ways, and the links open the other session. An agent without session/fork is not offered it.
 */

const suite = appSuite('fork');

const visible = (page: Page, testId: string) => page.locator(`.tab-panel:not([hidden]) [data-testid=${testId}]`);
const historyOpen = (page: Page, sessionId: string) =>
  page.getByTestId('sidebar-history').locator(`[data-testid=history-row][data-session-id="${sessionId}"] [data-testid=history-open]`);

describe('session fork', { timeout: 180_000 }, () => {
  it('forks from the last prompt into a new tab, linked both ways in history', async () => {
    const { page, errors } = await suite.open({ empty: true });
    // The agent keeps its sessions outside the project folder (not a change of the project).
    const agentStore = tempDir('sb-fork-agent-');
    onTestFinished(() => rmSync(agentStore, { recursive: true, force: true }));
    const row = await addScenarioAgent(page, 'Forking Agent', `SCENARIO_CAPS=fork\nSCENARIO_STORE=${join(agentStore, 'sessions.json')}`);
    const parent = await startSessionFromSidebar(page, row, suite.work);
    const parentId = (await parent.getAttribute('data-session-id'))!;
    await sendPrompt(parent, 'say the first question');
    await parent.getByTestId('agent-message').filter({ hasText: 'the first question' }).waitFor();
    await parent.and(page.locator('[data-status=idle]')).waitFor();

    // Offered once, under the last prompt.
    const forkButton = parent.getByTestId('fork-from-here');
    await forkButton.waitFor();
    expect(await forkButton.count()).toBe(1);
    await forkButton.click();

    const fork = activeSession(page).and(page.locator(`:not([data-session-id="${parentId}"])`));
    await fork.getByTestId('fork-banner').waitFor();
    const forkId = (await fork.getAttribute('data-session-id'))!;
    expect(forkId).not.toBe(parentId);
    await expect(fork.getByTestId('forked-from').innerText()).resolves.toContain('forked from say the first question');
    await expect(page.locator('[role=tab][aria-selected=true]').innerText()).resolves.toContain('Fork of say the first question');
    await fork.and(page.locator('[data-status=idle]')).waitFor();
    // The agent goes on from the parent's conversation.
    await sendPrompt(fork, 'remember');
    await fork.getByTestId('agent-message').filter({ hasText: '["say the first question","remember"]' }).waitFor();

    // The fork's "forked from" link goes back to the live parent.
    await fork.getByTestId('forked-from').getByRole('button').click();
    await activeSession(page).and(page.locator(`[data-session-id="${parentId}"]`)).waitFor();

    // History: the parent's transcript lists the fork, the fork's transcript its parent; the links navigate.
    await historyOpen(page, parentId).click();
    const transcript = visible(page, 'transcript-tab').and(page.locator(`[data-session-id="${parentId}"]`));
    const forks = transcript.getByTestId('forks');
    await forks.filter({ hasText: 'remember' }).waitFor();
    await historyOpen(page, forkId).click();
    const forkTranscript = visible(page, 'transcript-tab').and(page.locator(`[data-session-id="${forkId}"]`));
    await forkTranscript.getByTestId('forked-from').filter({ hasText: 'say the first question' }).waitFor();
    // A link to a live session goes to its tab.
    await forkTranscript.getByTestId('forked-from').getByRole('button').click();
    await activeSession(page).and(page.locator(`[data-session-id="${parentId}"]`)).waitFor();

    // The History tab's rows: the parent lists its fork, the fork its parent, and the fork link opens the fork.
    await page.getByTestId('history-open-tab').click();
    const list = visible(page, 'history-tab');
    const parentRow = list.locator(`[data-testid=history-row][data-session-id="${parentId}"]`);
    await parentRow.getByTestId('forks').filter({ hasText: 'remember' }).waitFor();
    await list.locator(`[data-testid=history-row][data-session-id="${forkId}"]`).getByTestId('forked-from').filter({ hasText: 'say the first question' }).waitFor();
    await parentRow.getByTestId('forks').getByRole('button', { name: 'remember' }).click();
    await activeSession(page).and(page.locator(`[data-session-id="${forkId}"]`)).waitFor();
    expect(errors).toEqual([]);
  });

  it('is not offered when the agent does not advertise session/fork', async () => {
    const { page } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Plain Agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    await sendPrompt(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    expect(await tab.getByTestId('user-message').count()).toBe(1);
    expect(await tab.getByTestId('fork-from-here').count()).toBe(0);
  });
});
