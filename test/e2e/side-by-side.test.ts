import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { activeSession, addScenarioAgent, recordNotifications, sendPrompt, tabButtonOf, startSessionFromSidebar } from '../support/ui';
import { connectContract } from '../support/contract-client';
import { WAIT } from '../support/waits';

/** Several agents at once, as the user sees them: what needs you, a flooding agent next to a calm one, closing tabs. */

const suite = appSuite('side');
const open = () => suite.open({ empty: true });

const visibleSessionId = (page: Page) => activeSession(page).getAttribute('data-session-id');

describe('side by side', { timeout: 180_000 }, () => {
  it('counts the sessions that need you in the title; Ctrl+J goes to each, permission requests first', async () => {
    const { page, errors } = await open();
    const r = await addScenarioAgent(page, 'Attentive');
    const a = await startSessionFromSidebar(page, r, suite.work);
    const aId = await a.getAttribute('data-session-id');
    await sendPrompt(a, 'stream 20 3 40');
    await a.and(page.locator('[data-status=working]')).waitFor();
    const b = await startSessionFromSidebar(page, r, suite.work); // A goes to the background, still working
    const bId = await b.getAttribute('data-session-id');
    await sendPrompt(b, 'permission execute');
    await b.getByTestId('permission-card').waitFor();
    await page.keyboard.press('Control+t'); // B goes to the background too, its question unanswered
    await page.locator('.tab-panel:not([hidden])').getByTestId('launch-overview').waitFor();
    // A finishes unseen: two sessions need the user.
    await expect.poll(() => page.title(), { timeout: 30_000 }).toBe('(2) New tab — Switchboard');
    await expect(page.getByTestId('needs-you').innerText()).resolves.toMatch(/2/);

    await page.keyboard.press('Control+j');
    await expect.poll(() => visibleSessionId(page), { timeout: WAIT.page }).toBe(bId);
    await activeSession(page).getByTestId('permission-card').waitFor();
    await page.keyboard.press('Control+j');
    await expect.poll(() => visibleSessionId(page), { timeout: WAIT.page }).toBe(aId);
    await activeSession(page).getByTestId('agent-message').filter({ hasText: /\{end=\d+\}/ }).waitFor();
    // Seen now: only the question is left.
    await expect.poll(() => page.title(), { timeout: WAIT.page }).toMatch(/^\(1\) .+ — Switchboard$/);
    await page.keyboard.press('Control+j');
    await expect.poll(() => visibleSessionId(page), { timeout: WAIT.page }).toBe(bId);
    await activeSession(page).getByTestId('permission-option').filter({ hasText: 'Allow once' }).click();
    await activeSession(page).getByTestId('agent-message').filter({ hasText: 'permission: selected yes-just-once' }).waitFor();
    await expect.poll(() => page.title(), { timeout: WAIT.server }).toMatch(/^[^(].* — Switchboard$/);
    expect(errors).toEqual([]);
  });

  it('a flooding agent is throttled and says so, while the agent in the next pane answers at once', async () => {
    const { page, errors } = await open();
    // Flood control, set in Settings: over 2,000 messages a second for 1 s is flooding; then read at 1,500 a second.
    await page.keyboard.press('Control+,');
    const settings = page.locator('.tab-panel:not([hidden])').getByTestId('settings-tab').locator('[data-section=supervision]');
    await expect(settings.getByTestId('setting-agents.floodPerSecond').inputValue()).resolves.toBe('5000');
    for (const [key, value] of [['floodPerSecond', '2000'], ['floodSeconds', '1'], ['floodThrottlePerSecond', '1500']] as const) {
      await settings.getByTestId(`setting-agents.${key}`).fill(value);
      await settings.getByTestId(`setting-agents.${key}`).press('Enter');
    }
    const c = await connectContract(suite.app);
    try {
      await expect.poll(async () => ((await c.call('settings.get', { key: 'agents.floodThrottlePerSecond' })) as { entry: { value: unknown } }).entry.value, { timeout: WAIT.server }).toBe(1500);
    } finally {
      c.close();
    }
    const flooder = await addScenarioAgent(page, 'Flooder');
    const calm = await addScenarioAgent(page, 'Calm');
    const flood = await startSessionFromSidebar(page, flooder, suite.work);
    await page.getByRole('button', { name: 'Split right' }).first().click();
    const right = page.getByTestId('pane').nth(1);
    await right.click();
    const other = await startSessionFromSidebar(page, calm, suite.work);
    await expect(right.locator('[data-testid=session-tab]').count()).resolves.toBe(1);

    // 10,000 chunks a second for 3 s: past the limit after a second, then read at 1,500 a second.
    await sendPrompt(flood, 'stream 10000 3 40');
    const badge = flooder.getByTestId('agent-throttled-badge');
    await badge.waitFor();
    await expect(badge.getAttribute('title')).resolves.toMatch(/reads its output at 1,500 a second.*Nothing is dropped/);
    // The user is told in the flooding session itself.
    await flood.getByTestId('session-warnings').getByRole('button', { name: /warning/ }).click();
    await flood.getByTestId('session-warnings').getByText(/flooding/).first().waitFor();
    await expect(flood.getByTestId('session-warnings').innerText()).resolves.toMatch(/messages a second for 1 s \(more than 2,000\)/);

    // Meanwhile the other agent answers, and its reply is on screen before the flood is through.
    await sendPrompt(other, 'hello');
    await other.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    await expect(flood.getAttribute('data-status')).resolves.toBe('working');
    expect(await badge.count()).toBe(1);

    // Everything arrives in the end; once calm, the agent is read at full speed again.
    await flood.and(page.locator('[data-status=idle]')).waitFor({ timeout: 120_000 });
    await flood.getByTestId('agent-message').filter({ hasText: /\{end=\d+\}/ }).waitFor();
    await badge.waitFor({ state: 'detached', timeout: 15_000 });
    expect(errors).toEqual([]);
  });

  it('a finished turn notifies the desktop while the window is in the background, unless turned off in Settings', async () => {
    const { page } = await open();
    const notes = await recordNotifications(page);
    const r = await addScenarioAgent(page, 'Notifier');
    const tab = await startSessionFromSidebar(page, r, suite.work);
    await sendPrompt(tab, 'hello');
    await expect.poll(notes, { timeout: WAIT.agent }).toEqual(['Notifier is done']);

    await page.keyboard.press('Control+,');
    const toggle = page.locator('.tab-panel:not([hidden])').getByTestId('setting-notifications.turnEnd');
    await expect(toggle.isChecked()).resolves.toBe(true);
    await toggle.uncheck();
    await (await tabButtonOf(page, tab)).click();
    await sendPrompt(tab, 'hello');
    await expect.poll(() => tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).count(), { timeout: WAIT.agent }).toBe(2);
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    expect(await notes()).toEqual(['Notifier is done']);
    // The choice is kept (a setting of the core, not of this page).
    await page.reload();
    await page.getByTestId('workspace').waitFor();
    await page.keyboard.press('Control+,');
    await expect.poll(() => page.locator('.tab-panel:not([hidden])').getByTestId('setting-notifications.turnEnd').isChecked(), { timeout: WAIT.page }).toBe(false);
    await page.locator('.tab-panel:not([hidden])').getByTestId('setting-notifications.turnEnd').check();
  });

  it('closing a session tab closes the session (session/close, as the agent offers it)', async () => {
    const { page } = await open();
    const r = await addScenarioAgent(page, 'Closable', 'SCENARIO_CAPS=close');
    const tab = await startSessionFromSidebar(page, r, suite.work);
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    await sendPrompt(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    await tab.waitFor({ state: 'detached' });
    const c = await connectContract(suite.app);
    try {
      await expect
        .poll(async () => ((await c.call('sessions.live', {})) as { sessions: Array<{ id: string }> }).sessions.map((s) => s.id))
        .not.toContain(sessionId);
    } finally {
      c.close();
    }
    const db = new Database(join(suite.app.dataDir, 'switchboard.db'), { readonly: true });
    try {
      const last = db.prepare("SELECT method FROM acp_messages WHERE session_id = ? AND direction = 'c2a' ORDER BY seq DESC LIMIT 1").get(sessionId) as { method: string };
      expect(last.method).toBe('session/close');
    } finally {
      db.close();
    }
  });
});
