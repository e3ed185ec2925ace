import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { layoutSaved } from '../support/ui';
import { WAIT } from '../support/waits';

// A fresh data folder (store, saved layout) per test.
const suite = appSuite('workspace', undefined, { serverPerTest: true });

const paneTabs = (page: Page) =>
  page.getByTestId('pane').evaluateAll((panes) => panes.map((p) => [...p.querySelectorAll('[role=tab] .tab-title')].map((t) => t.textContent)));

async function newShell(page: Page): Promise<void> {
  await page.locator('.pane.focused').locator('.tab-new').click();
  await page.locator('.pane.focused').getByTestId('launch-shell').click();
  await page.locator('.pane.focused [role=tab][aria-selected=true] .tab-title').filter({ hasNotText: 'Shell' }).waitFor();
}

describe('workspace: split panes, drag tabs, layout restored', () => {
  it('splits into panes, moves a tab by dragging it, and restores the layout after a restart of the page', async () => {
    const { page, errors } = await suite.open();
    await page.getByTestId('empty-state').waitFor();
    await newShell(page);
    await newShell(page);
    expect((await paneTabs(page))[0]).toHaveLength(2);

    await page.getByRole('button', { name: 'Split right' }).first().click();
    await expect(page.getByTestId('pane').count()).resolves.toBe(2);
    await page.getByRole('button', { name: 'Split down' }).first().click();
    await expect(page.getByTestId('pane').count()).resolves.toBe(3);
    expect(await page.getByTestId('workspace').getAttribute('class')).toContain('dir-grid');
    await page.locator('.pane').nth(2).getByRole('button', { name: 'Close pane' }).click();
    await expect(page.getByTestId('pane').count()).resolves.toBe(2);

    // Drag the second shell tab from the first pane into the second.
    const tab = page.getByTestId('pane').nth(0).getByTestId('tab').nth(1);
    await tab.dragTo(page.getByTestId('pane').nth(1).locator('.tab-content'));
    const after = await paneTabs(page);
    expect(after.map((t) => t.length)).toEqual([1, 1]);
    // The moved shell still works in its new pane.
    await page.getByTestId('pane').nth(1).locator('.xterm').click();
    await page.keyboard.type('echo "moved=$((40+2))"\n');
    await page.getByTestId('pane').nth(1).locator('.xterm-rows', { hasText: 'moved=42' }).waitFor();

    await layoutSaved(suite.app, [1, 1]);
    await page.reload();
    await page.getByTestId('workspace').waitFor();
    await expect(page.getByTestId('pane').count()).resolves.toBe(2);
    expect((await paneTabs(page)).map((t) => t.length)).toEqual([1, 1]);
    // Restored shell tabs start fresh shells.
    await page.getByTestId('pane').nth(1).locator('.xterm').click();
    await page.keyboard.type('echo "again=$((1+1))"\n');
    await page.getByTestId('pane').nth(1).locator('.xterm-rows', { hasText: 'again=2' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('the layout comes back at the next start of the app', async () => {
    const { page } = await suite.open();
    await page.getByTestId('empty-state').waitFor();
    await newShell(page);
    await page.getByRole('button', { name: 'Split down' }).first().click();
    // The new pane has the focus: two shells there.
    await newShell(page);
    await newShell(page);
    await expect.poll(() => paneTabs(page).then((t) => t.map((x) => x.length)), { timeout: WAIT.page }).toEqual([1, 2]);
    await layoutSaved(suite.app, [1, 2]);

    await suite.restart();
    const again = await suite.open();
    await expect.poll(() => paneTabs(again.page).then((t) => t.map((x) => x.length)), { timeout: WAIT.server }).toEqual([1, 2]);
    expect(await again.page.getByTestId('workspace').getAttribute('class')).toContain('dir-column');
  });

  it('cannot split beyond four panes', async () => {
    const { page } = await suite.open();
    for (let i = (await page.getByTestId('pane').count()); i < 4; i++) await page.getByRole('button', { name: 'Split right' }).first().click();
    await expect(page.getByTestId('pane').count()).resolves.toBe(4);
    expect(await page.getByRole('button', { name: 'Split right' }).first().isDisabled()).toBe(true);
  });
});
