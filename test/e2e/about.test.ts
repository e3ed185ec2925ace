import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { WAIT } from '../support/waits';

/** The window title follows the active tab; About says what the app runs on (browser mode: what applies). */

const suite = appSuite('about');

describe('About and the window title', { timeout: 90_000 }, () => {
  it('About shows the version, Node, the data folder and the browser; the title names the active tab', async () => {
    const { page } = await suite.open({ empty: true });
    await page.keyboard.press('Control+t');
    await expect.poll(() => page.title(), { timeout: WAIT.page }).toBe('New tab — Switchboard');
    await page.locator('.tab-panel:not([hidden])').getByTestId('launch-about').click();
    const about = page.locator('.tab-panel:not([hidden]) [data-testid=about]');
    await about.waitFor();
    await expect.poll(() => page.title(), { timeout: WAIT.page }).toBe('About — Switchboard');
    await expect(about.getByTestId('about-version').innerText()).resolves.toMatch(/0\.\d+\.\d+/);
    await expect(about.getByTestId('about-node').innerText()).resolves.toContain(process.versions.node);
    await expect(about.getByTestId('about-data').innerText()).resolves.toContain(suite.app.dataDir);
    await expect(about.getByTestId('about-browser').innerText()).resolves.toMatch(/Chrome\/\d+/);
    // Electron's versions do not apply in browser mode.
    expect(await about.getByTestId('about-electron').count()).toBe(0);
    await expect(about.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).resolves.toBeGreaterThan(0);
  });
});
