import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { initRepo } from '../support/git-repo';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { WAIT } from '../support/waits';

/**
 * Compare with a judge in Chromium (issue 42): the judge's verdict and scores show beside the runs, and the exported
 * HTML file, opened in Chromium, makes no request and runs no script, though the run's content is hostile markup.
 */

const suite = appSuite('compare-judge', async (app) => {
  const c = await connectContract(app);
  const { command, args } = scenarioAgentCommand();
  for (const name of ['Alpha agent', 'Judge agent']) await c.call('agents.addCustom', { name, command, args, env: {} });
  c.close();
  initRepo(suite.work);
});

/** Where the hostile markup would send its requests: it counts them. */
let trap: Server;
const hits: string[] = [];
let trapUrl = '';
beforeAll(async () => {
  trap = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('document.title = "pwned"');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', () => resolve()));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => trap.close(() => resolve())));

describe('compare with a judge in Chromium', { timeout: 180_000 }, () => {
  it('shows the verdict beside the runs, and its export opens with no request and no script run from the runs’ content', async () => {
    const { page, errors } = await suite.open();
    const hostile = [
      `<script>document.title='pwned';fetch('${trapUrl}/script')</script>`,
      `<img src=${trapUrl}/img onerror="document.title='pwned'">`,
      `<link rel=stylesheet href=${trapUrl}/css><iframe src=${trapUrl}/frame></iframe>`,
      `<style>body{background:url(${trapUrl}/bg)}</style>`,
    ].join('\\n');
    await page.locator('.tab-new').click();
    await page.getByTestId('launch-compare').click();
    await page.getByTestId('compare-repo').fill(suite.work);
    await expect.poll(() => page.getByTestId('compare-base').inputValue(), { timeout: WAIT.server }).toBe('main');
    await page.getByTestId('compare-prompt').fill(`sh-write notes.html ${hostile}\\n`);
    await page.getByRole('checkbox', { name: 'Alpha agent' }).check();
    await page.getByTestId('compare-judge').selectOption({ label: 'Judge agent' });
    await page.getByTestId('compare-criteria').fill('most lines added');
    await page.getByTestId('compare-start').click();

    const panel = page.getByTestId('compare-judge-panel');
    await panel.getByTestId('compare-verdict').getByText('Run 1: 4/10').waitFor({ timeout: WAIT.agent });
    await expect(panel.getByTestId('compare-scores').textContent()).resolves.toContain('Run 1 (Alpha agent): 4/10');

    const [download] = await Promise.all([page.waitForEvent('download', { timeout: WAIT.server }), panel.getByTestId('compare-export').click()]);
    const dir = mkdtempSync(join(tmpdir(), 'sb-export-'));
    try {
      const file = join(dir, download.suggestedFilename());
      await download.saveAs(file);
      const html = readFileSync(file, 'utf8');
      expect(html).toContain('most lines added');
      writeFileSync(file, html);

      // The file on its own, in a fresh page: every request it makes is recorded.
      const context = await suite.browser.newContext();
      const requests: string[] = [];
      context.on('request', (r) => requests.push(r.url()));
      const viewer = await context.newPage();
      const consoleLines: string[] = [];
      viewer.on('console', (m) => consoleLines.push(m.text()));
      await viewer.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      await viewer.getByText('Run 1: 4/10').first().waitFor({ timeout: WAIT.page });
      // The hostile markup is on the page as text.
      await viewer.getByText(`<script>document.title='pwned';fetch('${trapUrl}/script')</script>`).first().waitFor({ timeout: WAIT.page });
      expect(await viewer.title()).toMatch(/^Comparison /);
      expect(await viewer.evaluate(() => document.querySelectorAll('script, img, iframe, link, object, embed').length)).toBe(0);
      expect(requests).toEqual([pathToFileURL(file).href]);
      expect(hits).toEqual([]);
      await context.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(errors).toEqual([]);
  });
});
