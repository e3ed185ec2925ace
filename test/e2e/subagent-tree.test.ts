import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { activeSession, addScenarioAgent, agentRow, sendPrompt, startSessionFromSidebar, tabButtonOf } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * ACP subagent sessions (issue 42) in the sidebar, the overview and history, in Chromium: the child under the
 * session that started it (collapsible), its state and time, ended once it ends; after a restart history
 * still shows it under its parent, and the reopened parent shows it as it was.
 */

const AGENT = 'Tree Agent';
const suite = appSuite('subagent-tree');

describe('the tree of subagent sessions', { timeout: 180_000 }, () => {
  it('shows the child under its parent in the sidebar, the overview and history, ended once it ends, and after a restart', async () => {
    let { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, AGENT, `SCENARIO_CAPS=loadSession,list,close\nSCENARIO_STORE=${join(suite.work, '.agent-sessions.json')}`);
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const parentId = (await tab.getAttribute('data-session-id'))!;
    await sendPrompt(tab, 'echo heron-parent');
    await tab.getByTestId('agent-message').filter({ hasText: 'heron-parent' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    await sendPrompt(tab, 'subagent hold');
    const card = tab.locator('[data-testid=subagent]').filter({ hasText: 'Test writer' });
    await card.and(page.locator('[data-state=working]')).waitFor();

    // The overview: the child is a row under its parent's, running, its time counting.
    await page.keyboard.press('Control+t');
    await page.locator('.tab-panel:not([hidden])').getByTestId('launch-overview').click();
    const overview = page.locator('.tab-panel:not([hidden]) [data-testid=overview]');
    await overview.waitFor();
    const overviewTab = await tabButtonOf(page, overview);
    const parentRow = overview.locator(`[data-testid=overview-row][data-session-id="${parentId}"]`);
    const childRow = overview.locator(`[data-testid=overview-child][data-parent-id="${parentId}"]`);
    await childRow.and(page.locator('[data-state=working]')).waitFor();
    await expect(childRow.innerText()).resolves.toContain('Test writer');
    await expect(childRow.getByTestId('overview-child-state').innerText()).resolves.toContain('running');
    await expect.poll(() => childRow.getByTestId('overview-child-time').innerText(), { timeout: WAIT.page }).toMatch(/^\d+ s$/);
    // The child is not a live session of its own in the list: one top-level row, the child right after it.
    await expect(overview.getByTestId('overview-row').count()).resolves.toBe(1);
    expect(await overview.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid')))).toEqual(['overview-row', 'overview-child']);
    // Collapsible.
    await parentRow.getByTestId('overview-children-toggle').click();
    await childRow.waitFor({ state: 'detached' });
    await parentRow.getByTestId('overview-children-toggle').click();
    await childRow.waitFor();

    // The sidebar: under the session in its agent's list, and under its row in History (not a row of its own).
    await row.locator('.agent-name').click();
    const sideChild = row.locator(`[data-testid=agent-session][data-session-id="${parentId}"] [data-testid=agent-session-child]`);
    await sideChild.and(page.locator('[data-state=working]')).waitFor();
    await expect(sideChild.innerText()).resolves.toMatch(/Test writer[\s\S]*running/);
    await expect(row.getByTestId('agent-session').count()).resolves.toBe(1);
    const history = page.getByTestId('history-section');
    const historyRow = history.locator(`[data-testid=history-row][data-session-id="${parentId}"]`);
    const historyChild = historyRow.getByTestId('history-subagent');
    await historyChild.and(page.locator('[data-state=working]')).waitFor();
    await expect(history.getByTestId('history-row').count()).resolves.toBe(1);

    // The child ends (cancelled from its card): ended everywhere, never left running.
    await (await tabButtonOf(page, tab)).click();
    await card.getByTestId('subagent-cancel').click();
    await card.and(page.locator('[data-state=ended]')).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    await sideChild.and(page.locator('[data-state=ended]')).waitFor();
    await expect(sideChild.innerText()).resolves.toContain('ended');
    await historyChild.and(page.locator('[data-state=ended]')).waitFor();
    await overviewTab.click();
    await childRow.and(page.locator('[data-state=ended]')).waitFor();
    await expect(childRow.getByTestId('overview-child-state').innerText()).resolves.toContain('ended');
    expect(errors).toEqual([]);

    // After a restart: History shows the parent with its child under it (folded, as nothing works), ended.
    await suite.restart();
    ({ page, errors } = await suite.open({ empty: true }));
    const history2 = page.getByTestId('history-section');
    const historyRow2 = history2.locator(`[data-testid=history-row][data-session-id="${parentId}"]`);
    await historyRow2.getByTestId('history-subagents-toggle').waitFor();
    await expect(history2.getByTestId('history-row').count()).resolves.toBe(1);
    await expect(historyRow2.getByTestId('history-subagent').count()).resolves.toBe(0);
    await historyRow2.getByTestId('history-subagents-toggle').click();
    const child2 = historyRow2.getByTestId('history-subagent');
    await child2.and(page.locator('[data-state=ended]')).waitFor();
    await expect(child2.innerText()).resolves.toMatch(/Test writer[\s\S]*ended · \d+ s/);

    // Reopened from History, the parent shows its child as it was: ended, its thread kept.
    await page.getByTestId('history-open-tab').click();
    const full = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    await full.locator(`[data-testid=history-row][data-session-id="${parentId}"]`).getByTestId('history-reopen').click();
    const reopened = activeSession(page);
    await reopened.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    const card2 = reopened.locator('[data-testid=subagent]').filter({ hasText: 'Test writer' });
    await card2.and(page.locator('[data-state=ended]')).waitFor();
    await expect(card2.getByTestId('subagent-state').innerText()).resolves.toContain('Ended');
    await card2.getByTestId('subagent-thread').getByTestId('agent-message').filter({ hasText: 'Child started: reading parser.ts.' }).waitFor();
    // The reopened parent is live again; its child, ended, shows under it in the agent's list.
    const row2 = agentRow(page, AGENT);
    await row2.locator('.agent-name').click();
    const sideParent = row2.locator(`[data-testid=agent-session][data-session-id="${parentId}"]`);
    await sideParent.waitFor();
    expect(errors).toEqual([]);
  });

  it("shows in the turn's review which subagent changed which file, and reverts one subagent's changes alone", async () => {
    const { page, errors } = await suite.open({ empty: true });
    const folder = join(suite.work, 'per-child');
    mkdirSync(folder);
    writeFileSync(join(folder, 'shared.ts'), 'one\ntwo\nthree\nfour\nfive\n');
    const row = await addScenarioAgent(page, 'Writing Agent');
    const tab = await startSessionFromSidebar(page, row, folder);
    await sendPrompt(tab, 'subagents-write');
    await tab.getByTestId('agent-message').filter({ hasText: 'Both subagents finished.' }).waitFor();
    await tab.getByTestId('turn-changes-open').filter({ hasText: '3 added' }).click({ timeout: 60_000 });

    const review = page.locator('.tab-panel:not([hidden]) [data-testid=review-tab]');
    const child = (title: string) => review.locator(`[data-testid=child-changes-child][data-title="${title}"]`);
    await child('Test writer').waitFor();
    const files = (title: string) => child(title).getByTestId('child-changes-file').evaluateAll((els) => els.map((e) => (e as HTMLElement).innerText.trim()));
    await expect(files('Test writer')).resolves.toEqual(['a.ts', 'shared.ts also written by Doc writer in this turn']);
    await expect(files('Doc writer')).resolves.toEqual(['b.ts', 'shared.ts also written by Test writer in this turn']);

    await child('Test writer').getByTestId('child-changes-revert').click();
    await expect.poll(() => existsSync(join(folder, 'a.ts')), { timeout: WAIT.server }).toBe(false);
    await expect.poll(() => readFileSync(join(folder, 'shared.ts'), 'utf8'), { timeout: WAIT.server }).toBe('one\ntwo\nthree\nfour\nFIVE by the doc writer\n');
    expect(readFileSync(join(folder, 'b.ts'), 'utf8')).toBe('export const b = 2;\n');
    expect(readFileSync(join(folder, 'parent.ts'), 'utf8')).toBe('export const parent = true;\n');
    expect(errors).toEqual([]);
  });
});
