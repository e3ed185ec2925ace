import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import type { AppServer } from './app-server';
import { connectContract } from './contract-client';
import { WAIT } from './waits';

/** What a user does in the app's page, step by step (shared by the end-to-end suites). */

export const agentsSidebar = (page: Page): Locator => page.getByTestId('sidebar-agents');
export const agentRow = (page: Page, name: string): Locator => agentsSidebar(page).getByTestId('agent-row').filter({ hasText: name });

/** The visible session tabs (one per pane at most); `within` a pane for that pane's. */
export const activeSession = (page: Page, within?: Locator): Locator => (within ?? page).locator('.tab-panel:not([hidden]) [data-testid=session-tab]');

/** Adds an agent with the sidebar's form; `env` is KEY=value lines. */
export async function addAgent(page: Page, agent: { name: string; command: string; args: readonly string[]; env?: string }): Promise<Locator> {
  await agentsSidebar(page).getByTestId('add-custom-agent').click();
  const form = page.getByTestId('agent-form');
  await form.getByTestId('agent-name').fill(agent.name);
  await form.getByTestId('agent-command').fill(agent.command);
  await form.getByTestId('agent-args').fill(agent.args.join('\n'));
  await form.getByTestId('agent-env').fill(agent.env ?? '');
  await form.getByTestId('agent-save').click();
  await form.waitFor({ state: 'detached' });
  const r = agentRow(page, agent.name);
  await r.waitFor();
  return r;
}

/** Adds a scenario agent (test/fixtures/scenario-agent) with the sidebar's form. */
export function addScenarioAgent(page: Page, name: string, env = ''): Promise<Locator> {
  return addAgent(page, { name, ...scenarioAgentCommand(), env });
}

/**
 * Starts a session in `folder` from the agent's sidebar row (it opens in the focused pane); resolves with
 * that session's tab, wherever it goes later, once the session is idle (`idle: false`: once it shows, as
 * a session waiting for sign-in does).
 */
export async function startSessionFromSidebar(page: Page, row: Locator, folder: string, options: { idle?: boolean } = {}): Promise<Locator> {
  await row.getByTestId('agent-new-session').click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByTestId('new-session-folder').fill(folder);
  await dialog.getByTestId('new-session-start').click();
  await dialog.waitFor({ state: 'detached' });
  const panel = page.locator('.pane.focused .tab-panel:not([hidden])');
  const fresh = panel.locator('[data-testid=session-tab]');
  const failed = panel.locator('.start-error');
  await fresh.or(failed).waitFor({ timeout: 60_000 });
  if (await failed.isVisible()) throw new Error(`the session did not start: ${await failed.innerText()}`);
  const tab = page.locator(`[data-testid=session-tab][data-session-id="${await fresh.getAttribute('data-session-id')}"]`);
  if (options.idle !== false) await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
  return tab;
}

/** The tab (in the tab strip) of the panel holding `content`: found through the panel's aria-labelledby, not its title. */
export async function tabButtonOf(page: Page, content: Locator): Promise<Locator> {
  const tabId = await content.evaluate((el) => el.closest('[role=tabpanel]')?.getAttribute('aria-labelledby') ?? '');
  if (!tabId) throw new Error('not inside a tab panel');
  return page.locator(`[role=tab][id="${tabId}"]`);
}

/** Replaces the page's Notification with one that records each title (window.__notes) and makes the window unfocused. */
export async function recordNotifications(page: Page): Promise<() => Promise<string[]>> {
  await page.context().grantPermissions(['notifications']);
  await page.evaluate(() => {
    const w = window as unknown as { __notes: string[]; Notification: typeof Notification };
    w.__notes = [];
    const Base = w.Notification;
    w.Notification = class extends Base {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        w.__notes.push(title);
      }
    };
    document.hasFocus = () => false;
  });
  return () => page.evaluate(() => (window as unknown as { __notes: string[] }).__notes);
}

/** Types `text` into the tab's prompt and sends it; resolves once the prompt is sent (the input is empty again). */
export async function sendPrompt(tab: Locator, text: string): Promise<void> {
  const input = tab.getByTestId('prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await expect.poll(() => input.inputValue(), { timeout: WAIT.page }).toBe('');
}

/**
 * Waits until the app has saved a layout of panes holding these numbers of tabs, each pane's active tab the
 * one the page shows (it saves a moment after a change; a tab chosen after the last save would otherwise come
 * back unchosen), read back through the contract: then a reload or a restart brings it back as it is.
 */
export async function layoutSaved(page: Page, app: AppServer, tabsPerPane: number[]): Promise<void> {
  const shown = async (): Promise<string[]> =>
    page.evaluate(() =>
      [...document.querySelectorAll('[data-testid=pane]')].map((pane) => {
        const tabs = [...pane.querySelectorAll('[role=tablist] [role=tab]')];
        return `${tabs.length}:${tabs.findIndex((t) => t.getAttribute('aria-selected') === 'true')}`;
      }),
    );
  const client = await connectContract(app);
  try {
    const saved = async () => {
      const { entry } = await client.call<{ entry: { value: { panes: Array<{ tabs: unknown[]; active: number | null }> } | null } }>('settings.get', { key: 'workspace.layout' });
      const panes = entry.value?.panes ?? [];
      return { counts: panes.map((p) => p.tabs.length), panes: panes.map((p) => `${p.tabs.length}:${p.active ?? -1}`).sort() };
    };
    await expect.poll(async () => (await saved()).counts, { timeout: WAIT.server }).toEqual(tabsPerPane);
    await expect.poll(async () => (await saved()).panes, { timeout: WAIT.server }).toEqual((await shown()).sort());
  } finally {
    client.close();
  }
}
