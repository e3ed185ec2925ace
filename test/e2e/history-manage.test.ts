import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { AcpScript, seedHistory } from '../support/history-seed';

/** Managing past sessions from the History tab: rename, pin, delete with Undo; and the empty history. */

const HOUR = 3_600_000;
const now = Date.now();

const ids = (list: Locator) => list.getByTestId('history-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session-id')));

describe('managing history', () => {
  const suite = appSuite('history-manage', undefined, {
    seed(dataDir) {
      const mk = (acp: string, at: number, prompt: string) => new AcpScript(acp, at).start('/work/app').turn(prompt, `Done: ${prompt}`).messages;
      seedHistory(dataDir, {
        agents: [{ id: 'claude', name: 'Claude Code', command: 'false' }],
        sessions: [
          { id: 'one', agentId: 'claude', cwd: '/work/app', createdAt: now - HOUR, messages: mk('a1', now - HOUR, 'First task about caching') },
          { id: 'two', agentId: 'claude', cwd: '/work/app', createdAt: now - 2 * HOUR, messages: mk('a2', now - 2 * HOUR, 'Second task about logging') },
          { id: 'three', agentId: 'claude', cwd: '/work/app', createdAt: now - 3 * HOUR, messages: mk('a3', now - 3 * HOUR, 'Third task about metrics') },
        ],
      });
    },
  });

  it('renames inline, pins to the top, deletes with Undo', async () => {
    const { page } = await suite.open();
    const sidebar = page.getByTestId('sidebar-history');
    await sidebar.getByTestId('history-row').first().waitFor();
    expect(await ids(sidebar)).toEqual(['one', 'two', 'three']);
    await sidebar.getByTestId('history-open-tab').click();
    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    const row = (id: string) => tab.locator(`[data-testid=history-row][data-session-id=${id}]`);
    await row('two').waitFor();

    // Rename: Enter saves; Esc cancels.
    await row('two').hover();
    await row('two').getByTestId('history-rename').click();
    const input = row('two').getByTestId('history-rename-input');
    await input.fill('Logging cleanup');
    await input.press('Enter');
    await row('two').getByTestId('history-open').filter({ hasText: 'Logging cleanup' }).waitFor();
    await sidebar.getByTestId('history-open').filter({ hasText: 'Logging cleanup' }).waitFor();
    await row('two').getByTestId('history-rename').click();
    await row('two').getByTestId('history-rename-input').fill('Not this');
    await row('two').getByTestId('history-rename-input').press('Escape');
    await row('two').getByTestId('history-open').filter({ hasText: 'Logging cleanup' }).waitFor();
    // The new name is searchable.
    await page.keyboard.press('Control+k');
    await page.getByTestId('history-search-input').fill('cleanu');
    await page.locator('[data-testid=history-hit][data-session-id=two]').first().waitFor();
    await page.keyboard.press('Escape');

    // Pin: the oldest goes to the top, marked.
    await row('three').hover();
    await row('three').getByTestId('history-pin').click();
    await tab.locator('[data-testid=history-row][data-pinned]').waitFor();
    expect(await ids(tab)).toEqual(['three', 'one', 'two']);
    expect(await ids(sidebar)).toEqual(['three', 'one', 'two']);
    expect(await row('three').getByTestId('history-pin').getAttribute('aria-pressed')).toBe('true');

    // Delete, then Undo.
    await row('one').hover();
    await row('one').getByTestId('history-delete').click();
    await row('one').waitFor({ state: 'detached' });
    expect(await ids(sidebar)).toEqual(['three', 'two']);
    const notice = page.getByTestId('history-undo-notice');
    await expect(notice.textContent()).resolves.toContain('First task about caching');
    await notice.getByTestId('history-undo').click();
    await row('one').waitFor();
    expect(await ids(tab)).toEqual(['three', 'one', 'two']);

    // Deleted sessions can also be restored from the list of recently deleted ones.
    await row('two').hover();
    await row('two').getByTestId('history-delete').click();
    await row('two').waitFor({ state: 'detached' });
    await tab.getByTestId('history-trash-toggle').click();
    const deleted = tab.locator('[data-testid=history-deleted-row][data-session-id=two]');
    await deleted.getByTestId('history-restore').click();
    await deleted.waitFor({ state: 'detached' });
    await tab.getByTestId('history-trash-toggle').click();
    await row('two').waitFor();
  });

  it('archives: the session leaves the list, shows under Archived, is still found by search, and comes back with Unarchive', async () => {
    const { page } = await suite.open();
    const sidebar = page.getByTestId('sidebar-history');
    await sidebar.getByTestId('history-row').first().waitFor();
    await sidebar.getByTestId('history-open-tab').click();
    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    const row = (id: string) => tab.locator(`[data-testid=history-row][data-session-id=${id}]`);
    // The list fills after the tab opens: wait for the session before acting on it.
    const id = 'three';
    await row(id).waitFor();
    await row(id).hover();
    await row(id).getByTestId('history-archive').click();
    await row(id).waitFor({ state: 'detached' });
    expect(await ids(sidebar)).not.toContain(id);
    await tab.getByTestId('history-archived-filter').check();
    await row(id).waitFor();
    expect(await ids(tab)).toEqual([id]);
    // Search still finds it.
    await page.keyboard.press('Control+k');
    await page.getByTestId('history-search-input').fill('metrics');
    await page.locator(`[data-testid=history-hit][data-session-id=${id}]`).first().waitFor();
    await page.keyboard.press('Escape');
    await row(id).hover();
    await row(id).getByTestId('history-archive').click();
    await row(id).waitFor({ state: 'detached' });
    await tab.getByTestId('history-archived-filter').uncheck();
    await row(id).waitFor();
  });
});

describe('an empty history', () => {
  const suite = appSuite('history-empty');

  it('says what to do when there is no history yet', async () => {
    const { page } = await suite.open();
    const empty = page.getByTestId('history-empty');
    await empty.waitFor();
    await expect(empty.textContent()).resolves.toContain('Start one from a new tab');
    await page.locator('.pane.focused .tab-new').click();
    await page.getByTestId('launch-history').click();
    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    await expect(tab.getByTestId('history-tab-empty').textContent()).resolves.toContain('No sessions yet');
    // Searching an empty history finds nothing, and says so.
    await page.keyboard.press('Control+Shift+F');
    await page.getByTestId('history-search-input').fill('anything');
    await page.getByTestId('history-search-empty').waitFor();
  });
});
