/**
 * The screenshot review: the built app (browser mode) at 1440×900 and 1000×700, light and dark, showing the
 * empty state, a session with a diff and a terminal, the review tab, Settings, compare, and nested splits. For a person to
 * look at (no assertion); the PNGs are not committed.
 *
 * Run (after `npx electron-vite build`):  node --import tsx test/support/screenshots.ts [out-dir]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { startAppServer, tempDir } from './app-server';
import { launchBrowser, openApp } from './browser';
import { connectContract } from './contract-client';

const out = resolve(process.argv[2] ?? 'screenshots');
const sizes = [
  { name: '1440x900', width: 1440, height: 900 },
  { name: '1000x700', width: 1000, height: 700 },
];
const schemes = ['light', 'dark'] as const;

async function closeAllTabs(page: Page): Promise<void> {
  const close = page.locator('[role=tab] .tab-close');
  while ((await close.count()) > 0) await close.first().click();
}

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const app = await startAppServer();
  const browser = await launchBrowser();
  const work = realpathSync(tempDir('sb-shots-work-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: work });
  writeFileSync(join(work, 'README.md'), '# project\n\nA small project for the screenshots.\n');
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', 'init', '--allow-empty'], { cwd: work });
  execFileSync('git', ['add', '-A'], { cwd: work });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'readme'], { cwd: work });
  const client = await connectContract(app);
  const { command, args } = scenarioAgentCommand();
  await client.call('agents.addCustom', { name: 'Scenario Agent', command, args, env: {} });
  try {
    for (const size of sizes) {
      for (const scheme of schemes) {
        const shot = async (page: Page, what: string) => {
          await page.waitForTimeout(400);
          await page.screenshot({ path: join(out, `${what}-${size.name}-${scheme}.png`) });
        };
        const { page, context } = await openApp(browser, app.url, { colorScheme: scheme });
        await page.setViewportSize({ width: size.width, height: size.height });
        await page.getByTestId('workspace').waitFor({ timeout: 60_000 });
        await closeAllTabs(page);
        await shot(page, 'empty');

        // A session with a diff and a terminal.
        const row = page.getByTestId('sidebar-agents').getByTestId('agent-row').first();
        await row.getByTestId('agent-new-session').click();
        const dialog = page.getByRole('dialog', { name: 'New session' });
        await dialog.getByTestId('new-session-folder').fill(work);
        await dialog.getByTestId('new-session-start').click();
        const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
        const idle = () => tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
        await idle();
        const send = async (text: string) => {
          await tab.getByTestId('prompt-input').fill(text);
          await tab.getByTestId('prompt-input').press('Enter');
          await page.waitForTimeout(500);
          await idle();
        };
        await send('updates');
        await send(`write-here src/app.py def main():\\n    print("hello from ${size.name} ${scheme}")\\n`);
        await send('diff-replace');
        await send(`terminal ${JSON.stringify({ command: 'sh', args: ['-c', 'echo building; echo done'] })}`);
        await tab.locator('[data-testid=monaco-diff][data-ready=true]').first().waitFor({ timeout: 60_000 }).catch(() => {});
        await shot(page, 'session');

        // The review tab of a turn's changes.
        await tab.getByTestId('turn-changes-open').first().click();
        await page.locator('.tab-panel:not([hidden]) [data-testid=review-tab] [data-testid=monaco-diff][data-ready=true]').first().waitFor({ timeout: 60_000 }).catch(() => {});
        await shot(page, 'review');

        // Settings.
        await page.keyboard.press('Control+,');
        await page.locator('.tab-panel:not([hidden]) [data-testid=settings-tab]').waitFor({ timeout: 30_000 }).catch(() => {});
        await shot(page, 'settings');

        // Compare: the form, then a comparison's results.
        await page.locator('.pane.focused .tab-new').click();
        await page.locator('.tab-panel:not([hidden])').getByTestId('launch-compare').click();
        await page.getByTestId('compare-repo').fill(work);
        await page.getByTestId('compare-prompt').fill('write-here notes.txt written in a worktree');
        await page.getByRole('checkbox', { name: 'Scenario Agent' }).check();
        await shot(page, 'compare-form');
        await page.getByTestId('compare-start').click();
        await page.getByTestId('compare-view').waitFor({ timeout: 60_000 });
        await page.locator('[data-testid=compare-run-diff] [data-testid=monaco-diff][data-ready=true]').first().waitFor({ timeout: 60_000 }).catch(() => {});
        await shot(page, 'compare');

        // Nested splits: the session on the left, a shell above the overview on the right.
        await page.getByTestId('tab').first().click();
        await page.locator('.pane.focused').getByRole('button', { name: 'Split right' }).click();
        await page.locator('.pane.focused .tab-new').click();
        await page.locator('.pane.focused').getByTestId('launch-shell').click();
        await page.locator('.pane.focused').getByRole('button', { name: 'Split down' }).click();
        await page.locator('.pane.focused .tab-new').click();
        await page.locator('.pane.focused').getByTestId('launch-overview').click();
        await shot(page, 'split');
        await closeAllTabs(page);
        await context.close();
        console.log(`${size.name} ${scheme}: done`);
      }
    }
  } finally {
    client.close();
    await browser.close();
    await app.stop();
  }
  console.log(`screenshots in ${out}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
