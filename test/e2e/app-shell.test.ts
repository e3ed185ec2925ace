import { existsSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { openApp } from '../support/browser';
import { WAIT } from '../support/waits';

/** Waits until the page shows `n` tabs. */
async function tabCount(page: Page, n: number): Promise<void> {
  await page.waitForFunction((want) => document.querySelectorAll('[data-testid=tab]').length === want, n);
}

const terminalText = (page: Page) => page.locator('.tab-panel:not([hidden]) .xterm-rows').innerText();

async function waitForTerminal(page: Page, pattern: RegExp): Promise<string> {
  let text = '';
  for (let i = 0; i < 300; i++) {
    text = await terminalText(page).catch(() => '');
    if (pattern.test(text)) return text;
    await page.waitForTimeout(50);
  }
  throw new Error(`terminal never showed ${pattern}; it shows:\n${text}`);
}

async function openShell(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'New tab' }).first().click();
  await page.getByTestId('launch-shell').click();
  await page.locator('.tab-panel:not([hidden]) .xterm-rows').waitFor();
  await page.locator('.tab-panel:not([hidden]) .xterm').click();
}

describe('app shell in Chromium (browser transport)', () => {
  // A fresh data folder (store, saved layout) per test.
  const suite = appSuite('shell', undefined, { serverPerTest: true });

  it('loads with no console errors and says what to do next', async () => {
    const { page, errors } = await suite.open();
    await expect(page.getByTestId('empty-state').innerText()).resolves.toMatch(/Ctrl.*T/);
    await expect(page.getByTestId('sidebar-agents').innerText()).resolves.toMatch(/Agents/i);
    await expect(page.getByTestId('sidebar-history').innerText()).resolves.toMatch(/History/i);
    // The token is taken out of the address bar once read.
    expect(page.url()).not.toContain('token=');
    await page.waitForTimeout(300);
    expect(errors).toEqual([]);
  });

  it('runs a real login shell in a tab: echo shows its output, and resizing reaches the shell', async () => {
    const { page, errors } = await suite.open();
    await openShell(page);
    await page.keyboard.type('echo "sum=$((6*7))"\n');
    await waitForTerminal(page, /sum=42/);
    await page.keyboard.type('stty size\n');
    const before = await waitForTerminal(page, /^\d+ \d+$/m);
    const [rows1, cols1] = /^(\d+) (\d+)$/m.exec(before)!.slice(1).map(Number) as [number, number];
    await page.setViewportSize({ width: 900, height: 500 });
    // The terminal has its new size (its rows redrawn): the pty's resize went out before the keys below.
    await expect.poll(() => page.locator('.tab-panel:not([hidden]) .xterm-rows > div').count(), { timeout: WAIT.page }).toBeLessThan(rows1);
    await page.keyboard.type('clear; stty size\n');
    const after = await waitForTerminal(page, new RegExp(`^(?!${rows1} ${cols1}$)\\d+ \\d+$`, 'm'));
    const [rows2, cols2] = /^(\d+) (\d+)$/m.exec(after)!.slice(1).map(Number) as [number, number];
    expect(cols2).toBeLessThan(cols1);
    expect(rows2).toBeLessThan(rows1);
    expect(errors).toEqual([]);
  });

  it('keyboard shortcuts open, cycle and close tabs', async () => {
    const { page } = await suite.open();
    await page.getByTestId('empty-state').waitFor();
    await page.keyboard.press('Control+t');
    await page.getByTestId('launcher').waitFor();
    await page.getByTestId('launch-shell').click();
    await page.locator('.xterm-rows').waitFor();
    await page.keyboard.press('Control+Shift+t'); // works while the terminal has focus
    await tabCount(page, 2);
    const selected = () => page.locator('[role=tab][aria-selected=true] .tab-title').innerText();
    await expect.poll(selected, { timeout: WAIT.page }).toBe('New tab');
    await page.keyboard.press('Control+Tab');
    // React paints the switch after the key press resolves: polled, not read once.
    await expect.poll(selected, { timeout: WAIT.page }).not.toBe('New tab');
    await page.keyboard.press('Control+Shift+Tab');
    await expect.poll(selected, { timeout: WAIT.page }).toBe('New tab');
    // The keyboard left the terminal that is hidden now: Ctrl+W is the app's, and typing reaches no hidden shell.
    expect(await page.evaluate(() => document.activeElement?.closest('.tab-panel[hidden]') ?? null)).toBeNull();
    await page.keyboard.press('Control+w');
    await tabCount(page, 1);
    await page.keyboard.press('Control+Shift+w');
    await page.getByTestId('empty-state').waitFor();
  });

  it('follows the OS dark theme, terminal included', async () => {
    const { page } = await suite.open({ colorScheme: 'dark' });
    await openShell(page);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(30, 31, 34)');
    const termBg = await page.locator('.xterm-scrollable-element').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(termBg).toBe('rgb(30, 31, 34)');
    const light = await suite.open({ colorScheme: 'light' });
    expect(await light.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
  });
});

describe('a corrupt store', () => {
  const suite = appSuite('corrupt', undefined, {
    seed(dataDir) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(join(dataDir, 'switchboard.db'), 'definitely not a sqlite database\n'.repeat(300));
    },
  });

  it('shows the file and a way out, keeps the old file, and then works', async () => {
    const dataDir = suite.dataDir;
    const dbPath = join(dataDir, 'switchboard.db');
    // Its own page: the app shows no workspace until the store is dealt with.
    const { page, context } = await openApp(suite.browser, suite.app.url);
    try {
      await page.getByTestId('store-error').waitFor();
      expect(await page.getByTestId('store-path').innerText()).toBe(dbPath);
      await page.getByRole('button', { name: /move it aside/i }).click();
      await page.getByTestId('empty-state').waitFor();
      const kept = readdirSync(dataDir).filter((f) => f.startsWith('switchboard.db.broken-'));
      expect(kept.length).toBe(1);
      expect(existsSync(dbPath)).toBe(true);
    } finally {
      await context.close();
    }
  });
});
