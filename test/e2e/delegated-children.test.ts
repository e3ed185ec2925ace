import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { activeSession, addScenarioAgent, sendPrompt, startSessionFromSidebar, tabButtonOf } from '../support/ui';

/**
 * A delegated session in Chromium (issue 42): an agent starts another agent's session through Switchboard's MCP
 * server; its card shows in the parent's thread, running, and the session shows under its parent as ACP
 * subagents do, in the sidebar, the overview and History (not as a session of its own). Closing the parent's tab
 * closes the child too (nothing is left running), and after a restart the reopened parent still shows the card,
 * ended, with the child's thread; History shows the child under it saying why it ended, and the child reopened
 * with it is under it again.
 */

const suite = appSuite('delegated-children');

const rowOf = (page: Page, agentId: string): Locator => page.locator(`[data-testid=agent-row][data-agent-id="${agentId}"]`);

describe('a delegated session under its parent', { timeout: 180_000 }, () => {
  it('shows its card running, ends with its closed parent, and is still there after a restart', async () => {
    let { page, errors } = await suite.open({ empty: true });
    const lead = await addScenarioAgent(page, 'Lead Agent', `SCENARIO_CAPS=mcpStart,loadSession,close\nSCENARIO_STORE=${join(suite.work, '.agent-sessions.json')}`);
    await addScenarioAgent(page, 'Writer Agent', `SCENARIO_CAPS=loadSession\nSCENARIO_STORE=${join(suite.work, '.writer-sessions.json')}`);
    const c = await connectContract(suite.app);
    let leadId = '';
    let writerId = '';
    try {
      const { agents } = await c.call<{ agents: Array<{ id: string; name: string }> }>('agents.list', {});
      leadId = agents.find((a) => a.name === 'Lead Agent')!.id;
      writerId = agents.find((a) => a.name === 'Writer Agent')!.id;
      await c.call('settings.set', { key: 'delegation.agents', value: [leadId] });
    } finally {
      c.close();
    }
    const tab = await startSessionFromSidebar(page, lead, suite.work);
    const parentId = (await tab.getAttribute('data-session-id'))!;
    await sendPrompt(tab, 'mcp-call switchboard-delegation start_session {"agent":"Writer Agent","task":"slow"}');
    const card = tab.locator('[data-testid=subagent]').filter({ hasText: 'Writer Agent (delegated)' });
    await card.and(page.locator('[data-state=working]')).waitFor();
    await card.getByTestId('subagent-thread').getByTestId('agent-message').filter({ hasText: 'tick 0' }).waitFor();
    // The tool that started it is named as the user reads it.
    await expect(tab.getByTestId('tool-title-mcp').first().innerText()).resolves.toBe('Switchboard · start session');

    // The sidebar: the child under its parent in the Lead's list, running; not a session of the Writer's list.
    await rowOf(page, leadId).locator('.agent-name').click();
    const sideChild = rowOf(page, leadId).locator(`[data-testid=agent-session][data-session-id="${parentId}"] [data-testid=agent-session-child]`);
    await sideChild.and(page.locator('[data-state=working]')).waitFor();
    // Named as its session is (its task, the first prompt), as the parent's list names the parent.
    await expect(sideChild.innerText()).resolves.toMatch(/slow[\s\S]*running/);
    const childId = (await sideChild.getAttribute('data-session-id'))!;
    await expect(rowOf(page, leadId).getByTestId('agent-session').count()).resolves.toBe(1);
    await rowOf(page, writerId).locator('.agent-name').click();
    await rowOf(page, writerId).getByTestId('agent-details').waitFor();
    await expect(rowOf(page, writerId).getByTestId('agent-session').count()).resolves.toBe(0);
    // History: one row, the child under it.
    const history = page.getByTestId('history-section');
    const historyRow = history.locator(`[data-testid=history-row][data-session-id="${parentId}"]`);
    await historyRow.locator(`[data-testid=history-subagent][data-session-id="${childId}"]`).and(page.locator('[data-state=working]')).waitFor();
    await expect(history.getByTestId('history-row').count()).resolves.toBe(1);
    // The overview: one top-level row, the child right after it.
    await page.keyboard.press('Control+t');
    await page.locator('.tab-panel:not([hidden])').getByTestId('launch-overview').click();
    const overview = page.locator('.tab-panel:not([hidden]) [data-testid=overview]');
    const childRow = overview.locator(`[data-testid=overview-child][data-parent-id="${parentId}"][data-session-id="${childId}"]`);
    await childRow.and(page.locator('[data-state=working]')).waitFor();
    await expect(childRow.innerText()).resolves.toMatch(/Writer Agent[\s\S]*slow/);
    await expect(overview.getByTestId('overview-row').count()).resolves.toBe(1);
    expect(await overview.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid')))).toEqual(['overview-row', 'overview-child']);
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    await (await tabButtonOf(page, tab)).click();

    // The parent's tab is closed: its child is closed with it, nothing left running.
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    const live = await connectContract(suite.app);
    try {
      await expect
        .poll(async () => (await live.call<{ sessions: Array<{ status: string }> }>('sessions.live', {})).sessions.filter((s) => s.status !== 'closed').map((s) => s.status), {
          timeout: 30_000,
        })
        .toEqual([]);
    } finally {
      live.close();
    }
    expect(errors).toEqual([]);

    // After a restart History shows the parent with the child under it, ended, saying why.
    await suite.restart();
    ({ page, errors } = await suite.open({ empty: true }));
    const history2 = page.getByTestId('history-section');
    const historyRow2 = history2.locator(`[data-testid=history-row][data-session-id="${parentId}"]`);
    await historyRow2.getByTestId('history-subagents-toggle').click();
    const child2 = historyRow2.locator(`[data-testid=history-subagent][data-session-id="${childId}"]`);
    await child2.and(page.locator('[data-state=ended]')).waitFor();
    await expect(child2.innerText()).resolves.toMatch(/slow[\s\S]*ended[\s\S]*It ended because its parent session was closed\./);
    await expect(history2.getByTestId('history-row').count()).resolves.toBe(1);

    // The reopened parent shows its card, ended, with the child's stored thread.
    await page.getByTestId('history-open-tab').click();
    const full = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    await full.locator(`[data-testid=history-row][data-session-id="${parentId}"]`).getByTestId('history-reopen').click();
    const reopened = activeSession(page);
    await reopened.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    const card2 = reopened.locator('[data-testid=subagent]').filter({ hasText: 'Writer Agent (delegated)' });
    await card2.and(page.locator('[data-state=ended]')).waitFor();
    await expect(card2.getByTestId('subagent-state').innerText()).resolves.toContain('Ended');
    await card2.getByTestId('subagent-thread').getByTestId('agent-message').filter({ hasText: 'tick 0' }).waitFor();
    // The child reopened too is under its parent again in the sidebar, not in the Writer's list.
    const c2 = await connectContract(suite.app);
    try {
      await c2.call('sessions.reopen', { sessionId: childId });
    } finally {
      c2.close();
    }
    await rowOf(page, leadId).locator('.agent-name').click();
    await rowOf(page, leadId).locator(`[data-testid=agent-session][data-session-id="${parentId}"] [data-testid=agent-session-child][data-session-id="${childId}"]`).waitFor();
    await rowOf(page, writerId).locator('.agent-name').click();
    await rowOf(page, writerId).getByTestId('agent-details').waitFor();
    await expect(rowOf(page, writerId).getByTestId('agent-session').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });
});
