import { it } from 'vitest';
import { startAppServer } from '../support/app-server';
import { launchBrowser, openApp } from '../support/browser';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';

it('visual', async () => {
  const app = await startAppServer();
  const browser = await launchBrowser();
  try {
    const { page } = await openApp(browser, app.url, { colorScheme: (process.env.SCHEME as 'dark') ?? 'light' });
    await page.getByTestId('workspace').waitFor();
    const sidebar = page.getByTestId('sidebar-agents');
    await sidebar.locator('[data-testid=agent-row], [data-testid=agents-empty]').first().waitFor();
    const { command, args } = scenarioAgentCommand();
    await sidebar.getByTestId('add-custom-agent').click();
    const form = page.getByTestId('agent-form');
    await form.getByTestId('agent-name').fill('Scenario');
    await form.getByTestId('agent-command').fill(command);
    await form.getByTestId('agent-args').fill(args.join('\n'));
    await page.screenshot({ path: '/tmp/sbdbg/v0-form.png' });
    await form.getByTestId('agent-save').click();
    await page.locator('.pane.focused .tab-new').click();
    await page.screenshot({ path: '/tmp/sbdbg/v1-launcher.png' });
    const panel = page.locator('.tab-panel:not([hidden])').getByTestId('launcher-new-session');
    await panel.getByTestId('new-session-folder').fill('/work/main');
    await panel.getByTestId('new-session-start').click();
    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    const input = tab.getByTestId('prompt-input');
    for (const p of ['updates', 'terminal {"command":"ls","args":["-la"]}', 'terminal-meta', 'echo **hi** `x` [a](https://x.y)']) {
      await input.fill(p);
      await input.press('Enter');
      await page.waitForTimeout(1200);
    }
    await page.screenshot({ path: '/tmp/sbdbg/v2-thread.png' });
    await input.fill('permission edit');
    await input.press('Enter');
    await page.waitForTimeout(800);
    await page.screenshot({ path: '/tmp/sbdbg/v3-permission.png' });
    await page.keyboard.press('1');
    await input.fill('slow');
    await input.press('Enter');
    await page.waitForTimeout(600);
    await input.fill('hello queued');
    await input.press('Enter');
    await input.pressSequentially('look at @pack');
    await page.waitForTimeout(800);
    await page.screenshot({ path: '/tmp/sbdbg/v4-queue.png' });
    await input.press('Escape');
    await input.fill('');
    await input.press('Escape');
    await page.waitForTimeout(1500);
    await page.locator('.agent-name').first().click();
    await page.screenshot({ path: '/tmp/sbdbg/v5-after.png' });
  } finally {
    await browser.close();
    await app.stop();
  }
}, 120000);
