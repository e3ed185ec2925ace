import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { WAIT } from '../support/waits';

/**
 * Idle agents give their memory back (issue 39), end to end in Chromium: the agent of an idle session is stopped
 * after the set time; the header and the sidebar say it sleeps; the next prompt brings the session back, the header
 * saying "Resuming…" meanwhile (the agent's session/load is held by a gate file until the test has seen it), and the
 * thread is as it was, each message once.
 */

const AGENT = 'Sleepy Agent';
const suite = appSuite('idle-sleep');
const sessionTab = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');

async function messages(tab: Locator): Promise<string[]> {
  return tab.locator('[data-testid=user-message], [data-testid=agent-message]').allInnerTexts();
}

describe('idle agents give their memory back', { timeout: 180_000 }, () => {
  it('an asleep session says so, and its next prompt resumes it with the thread unchanged', async () => {
    const gate = join(suite.work, '.load-gate');
    const agentStore = join(suite.work, '.agent-sessions.json');
    const { command, args } = scenarioAgentCommand();
    const c = await connectContract(suite.app);
    try {
      await c.call('agents.addCustom', { name: AGENT, command, args, env: { SCENARIO_CAPS: 'loadSession', SCENARIO_STORE: agentStore, SCENARIO_LOAD_GATE: gate }, cwd: suite.work });
    } finally {
      c.close();
    }
    const { page } = await suite.open();
    await page.locator('.pane.focused .tab-new').click();
    const launcher = page.locator('.tab-panel:not([hidden])').getByTestId('launcher-new-session');
    await launcher.getByTestId('new-session-agent').selectOption({ label: AGENT });
    await launcher.getByTestId('new-session-folder').fill(suite.work);
    await launcher.getByTestId('new-session-start').click();
    const tab = sessionTab(page);
    const status = tab.getByTestId('session-status');
    await status.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    const input = tab.getByTestId('prompt-input');
    await input.fill('say kestrel-one');
    await input.press('Enter');
    await tab.getByTestId('agent-message').filter({ hasText: 'kestrel-one' }).waitFor();
    await status.and(page.locator('[data-status=idle]')).waitFor();
    const before = await messages(tab);
    expect(before).toHaveLength(2);

    // Idle for the set time (about a second here): the agent is stopped, the session stays open, asleep.
    const settings = await connectContract(suite.app);
    try {
      await settings.call('settings.set', { key: 'agents.sleepIdleMinutes', value: 0.02 });
    } finally {
      settings.close();
    }
    await status.and(page.locator('[data-asleep=asleep]')).waitFor({ timeout: WAIT.server });
    expect(await status.innerText()).toBe('Asleep');
    const agentRow = page.getByTestId('sidebar-agents').getByTestId('agent-row').filter({ hasText: AGENT });
    await agentRow.getByTestId('agent-asleep').waitFor();

    // The next prompt wakes it: "Resuming…" while the agent loads the session (held by the gate)…
    await input.fill('say kestrel-two');
    await input.press('Enter');
    await status.and(page.locator('[data-asleep=waking]')).waitFor();
    expect(await status.innerText()).toBe('Resuming…');
    expect(await messages(tab)).toEqual(before);
    writeFileSync(gate, '');
    // …then the prompt goes, and the thread holds the old conversation once, then the new turn.
    await tab.getByTestId('agent-message').filter({ hasText: 'kestrel-two' }).waitFor({ timeout: WAIT.server });
    await expect.poll(() => messages(tab), { timeout: WAIT.page }).toEqual([...before, 'say kestrel-two', 'kestrel-two']);
    expect(await status.getAttribute('data-asleep')).toBeNull();
    await expect.poll(() => agentRow.getByTestId('agent-asleep').count(), { timeout: WAIT.page }).toBe(0);
  });
});
