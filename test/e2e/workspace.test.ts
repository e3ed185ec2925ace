import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { layoutSaved } from '../support/ui';
import { WAIT } from '../support/waits';

// A fresh data folder (store, saved layout) per test.
const suite = appSuite('workspace', undefined, { serverPerTest: true });

/** Each pane's box in the workspace, in fractions of its width and height (rounded to 1%). */
const paneBoxes = (page: Page) =>
  page.getByTestId('workspace').evaluate((ws) => {
    const w = ws.getBoundingClientRect();
    const r = (n: number) => Math.round(n * 100) / 100 || 0;
    return [...ws.querySelectorAll('[data-testid=pane]')].map((p) => {
      const b = p.getBoundingClientRect();
      return { x: r((b.left - w.left) / w.width), y: r((b.top - w.top) / w.height), w: r(b.width / w.width), h: r(b.height / w.height) };
    });
  });

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
    // Split down on the left pane: only that pane is split.
    expect(await paneBoxes(page)).toEqual([
      { x: 0, y: 0, w: 0.5, h: 0.5 },
      { x: 0, y: 0.5, w: 0.5, h: 0.5 },
      { x: 0.5, y: 0, w: 0.5, h: 1 },
    ]);
    await page.locator('.pane').nth(1).getByRole('button', { name: 'Close pane' }).click();
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

    await layoutSaved(page, suite.app, [1, 1]);
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
    await layoutSaved(page, suite.app, [1, 2]);

    await suite.restart();
    const again = await suite.open();
    await expect.poll(() => paneTabs(again.page).then((t) => t.map((x) => x.length)), { timeout: WAIT.server }).toEqual([1, 2]);
    expect(await paneBoxes(again.page)).toEqual([
      { x: 0, y: 0, w: 1, h: 0.5 },
      { x: 0, y: 0.5, w: 1, h: 0.5 },
    ]);
  });

  it('split right, then split down on the right pane: the left pane keeps the full height; resized and reloaded, it comes back as it was', async () => {
    const { page, errors } = await suite.open();
    await page.getByTestId('empty-state').waitFor();
    await newShell(page);
    await page.getByRole('button', { name: 'Split right' }).first().click();
    await newShell(page);
    await page.getByTestId('pane').nth(1).getByRole('button', { name: 'Split down' }).click();
    await newShell(page);
    const split = [
      { x: 0, y: 0, w: 0.5, h: 1 },
      { x: 0.5, y: 0, w: 0.5, h: 0.5 },
      { x: 0.5, y: 0.5, w: 0.5, h: 0.5 },
    ];
    expect(await paneBoxes(page)).toEqual(split);

    // The right column's own boundary moves; the left pane does not.
    const handle = page.getByRole('separator', { name: 'Resize the panes above and below' });
    await handle.focus();
    for (let i = 0; i < 5; i++) await handle.press('ArrowDown');
    const resized = [split[0], { ...split[1], h: 0.6 }, { x: 0.5, y: 0.6, w: 0.5, h: 0.4 }];
    expect(await paneBoxes(page)).toEqual(resized);
    // Dragging the vertical boundary resizes the top-level split only.
    const vertical = await page.getByRole('separator', { name: 'Resize the panes left and right' }).boundingBox();
    const ws = (await page.getByTestId('workspace').boundingBox())!;
    await page.mouse.move(vertical!.x + 3, vertical!.y + 100);
    await page.mouse.down();
    await page.mouse.move(vertical!.x + 3 - ws.width * 0.1, vertical!.y + 100, { steps: 4 });
    await page.mouse.up();
    const dragged = [{ ...split[0], w: 0.4 }, { ...resized[1]!, x: 0.4, w: 0.6 }, { ...resized[2]!, x: 0.4, w: 0.6 }];
    expect(await paneBoxes(page)).toEqual(dragged);

    await layoutSaved(page, suite.app, [1, 1, 1]);
    // …and the sizes the drag left, which are saved a moment after it (a debounce): the left/right split's first
    // part is the smaller one now.
    const client = await connectContract(suite.app);
    try {
      const rootSizes = async () => {
        const { entry } = await client.call<{ entry: { value: { tree?: { sizes?: number[] } } | null } }>('settings.get', { key: 'workspace.layout' });
        const sizes = entry.value?.tree?.sizes ?? [];
        return sizes.length === 2 && sizes[0]! < sizes[1]!;
      };
      await expect.poll(rootSizes, { timeout: WAIT.server }).toBe(true);
    } finally {
      client.close();
    }
    await page.reload();
    await expect.poll(() => paneTabs(page).then((t) => t.map((x) => x.length)), { timeout: WAIT.server }).toEqual([1, 1, 1]);
    expect(await paneBoxes(page)).toEqual(dragged);

    // Closing the top right pane's last tab gives its room to the pane below it.
    await page.getByTestId('pane').nth(1).locator('.tab-close').click();
    await expect.poll(() => paneBoxes(page), { timeout: WAIT.page }).toEqual([dragged[0], { x: 0.4, y: 0, w: 0.6, h: 1 }]);
    expect(errors).toEqual([]);
  });

  it('a layout saved before splits nested comes back with all its tabs (a grid of three: two above, one below)', async () => {
    const client = await connectContract(suite.app);
    const tab = (kind: string, title: string) => ({ kind, title, props: {} });
    try {
      await client.call('settings.set', {
        key: 'workspace.layout',
        value: {
          direction: 'grid',
          focusedPane: 2,
          panes: [
            { active: 1, tabs: [tab('history', 'History'), tab('settings', 'Settings')] },
            { active: 0, tabs: [tab('overview', 'Overview')] },
            { active: 0, tabs: [tab('about', 'About')] },
          ],
        },
      });
    } finally {
      client.close();
    }
    const { page } = await suite.open();
    await expect.poll(() => paneTabs(page), { timeout: WAIT.server }).toEqual([['History', 'Settings'], ['Overview'], ['About']]);
    expect(await paneBoxes(page)).toEqual([
      { x: 0, y: 0, w: 0.5, h: 0.5 },
      { x: 0.5, y: 0, w: 0.5, h: 0.5 },
      { x: 0, y: 0.5, w: 1, h: 0.5 },
    ]);
    expect(await page.locator('.pane.focused [role=tab][aria-selected=true]').innerText()).toContain('About');
  });

  it('a tab opened at the end of a strip that scrolls is shown whole, not under the pane’s buttons', async () => {
    const { page } = await suite.open({ viewport: { width: 1000, height: 700 } });
    await page.getByRole('button', { name: 'Split right' }).first().click();
    const pane = page.getByTestId('pane').nth(1);
    for (let i = 0; i < 8; i++) {
      await pane.locator('.tab-new').click();
      const strip = await pane.locator('.tab-strip').boundingBox();
      const shown = await pane.locator('[role=tab][aria-selected=true]').boundingBox();
      expect(shown!.x).toBeGreaterThanOrEqual(strip!.x - 1);
      expect(shown!.x + shown!.width).toBeLessThanOrEqual(strip!.x + strip!.width + 1);
      expect(shown!.x + shown!.width).toBeLessThanOrEqual((await pane.locator('.tab-new').boundingBox())!.x + 1);
    }
    expect(await pane.locator('.tab-strip').evaluate((s) => s.scrollWidth > s.clientWidth)).toBe(true);
  });

  it('a shell that ends says how in words (killed by a signal, not "code null")', async () => {
    const { page } = await suite.open({ empty: true });
    await newShell(page);
    await page.locator('.pane.focused .xterm').click();
    await page.keyboard.type('kill -9 $$\n');
    await page.locator('[data-testid=shell-tab][data-exited="killed by signal 9"]').waitFor({ timeout: WAIT.server });
    await page.locator('.pane.focused .xterm-rows', { hasText: '[the shell killed by signal 9]' }).waitFor({ timeout: WAIT.page });
  });

  it('cannot split beyond four panes', async () => {
    const { page } = await suite.open();
    for (let i = (await page.getByTestId('pane').count()); i < 4; i++) await page.getByRole('button', { name: 'Split right' }).first().click();
    await expect(page.getByTestId('pane').count()).resolves.toBe(4);
    expect(await page.getByRole('button', { name: 'Split right' }).first().isDisabled()).toBe(true);
  });
});
