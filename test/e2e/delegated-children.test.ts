import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { activeSession, addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * A delegated session in Chromium (issue 42): an agent starts another agent's session through Switchboard's MCP
 * server; its card shows in the parent's thread, running. Closing the parent's tab closes the child too (nothing
 * is left running), and after a restart the reopened parent still shows the card, ended, with the child's thread.
 */

const suite = appSuite('delegated-children');

describe('a delegated session under its parent', { timeout: 180_000 }, () => {
  it('shows its card running, ends with its closed parent, and is still there after a restart', async () => {
    let { page, errors } = await suite.open({ empty: true });
    const lead = await addScenarioAgent(page, 'Lead Agent', `SCENARIO_CAPS=mcpStart,loadSession,close\nSCENARIO_STORE=${join(suite.work, '.agent-sessions.json')}`);
    await addScenarioAgent(page, 'Writer Agent');
    const c = await connectContract(suite.app);
    try {
      const { agents } = await c.call<{ agents: Array<{ id: string; name: string }> }>('agents.list', {});
      await c.call('settings.set', { key: 'delegation.agents', value: [agents.find((a) => a.name === 'Lead Agent')!.id] });
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

    // After a restart the reopened parent shows its card, ended, with the child's stored thread.
    await suite.restart();
    ({ page, errors } = await suite.open({ empty: true }));
    await page.getByTestId('history-open-tab').click();
    const full = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    await full.locator(`[data-testid=history-row][data-session-id="${parentId}"]`).getByTestId('history-reopen').click();
    const reopened = activeSession(page);
    await reopened.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    const card2 = reopened.locator('[data-testid=subagent]').filter({ hasText: 'Writer Agent (delegated)' });
    await card2.and(page.locator('[data-state=ended]')).waitFor();
    await expect(card2.getByTestId('subagent-state').innerText()).resolves.toContain('Ended');
    await card2.getByTestId('subagent-thread').getByTestId('agent-message').filter({ hasText: 'tick 0' }).waitFor();
    expect(errors).toEqual([]);
  });
});
