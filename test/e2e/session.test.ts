import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { startAppServer, tempDir, type AppServer } from '../support/app-server';
import { launchBrowser, openApp } from '../support/browser';

/**
 * The session UI end to end in Chromium: the built app in browser mode, the scripted scenario agent
 * (a real ACP process) added as a custom agent through the sidebar, and what a user sees in the tab.
 */

let app: AppServer;
let browser: Browser;
let work: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  work = realpathSync(tempDir('sb-session-work-'));
  mkdirSync(join(work, 'src'), { recursive: true });
  writeFileSync(join(work, 'README.md'), '# Demo project\n');
  writeFileSync(join(work, 'src', 'alpha-target.ts'), 'export const alpha = 1;\n');
  [app, browser] = await Promise.all([startAppServer(), launchBrowser()]);
}, 90_000);

afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close().catch(() => {});
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const AGENT = 'Scenario';

async function open(): Promise<{ page: Page; errors: string[] }> {
  const { page, context, errors } = await openApp(browser, app.url);
  contexts.push(context);
  await page.getByTestId('workspace').waitFor();
  return { page, errors };
}

/** The visible session tab. */
const tabPanel = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');

/** Adds the scenario agent with the sidebar's form (once per app server). */
async function ensureAgent(page: Page): Promise<void> {
  const sidebar = page.getByTestId('sidebar-agents');
  await sidebar.locator('.agents-section').waitFor();
  // The list loads asynchronously: wait for either the empty note or a row.
  await sidebar.locator('[data-testid=agent-row], [data-testid=agents-empty]').first().waitFor();
  if ((await sidebar.getByTestId('agent-row').filter({ hasText: /Scenario/ }).count()) > 0) return;
  const { command, args } = scenarioAgentCommand();
  await sidebar.getByTestId('add-custom-agent').click();
  const form = page.getByTestId('agent-form');
  await form.getByTestId('agent-name').fill(AGENT);
  await form.getByTestId('agent-command').fill(command);
  await form.getByTestId('agent-args').fill(args.join('\n'));
  await form.getByTestId('agent-env').fill('SCENARIO_CAPS=resume');
  await form.getByTestId('agent-save').click();
  await form.waitFor({ state: 'detached' });
  await sidebar.getByTestId('agent-row').filter({ hasText: AGENT }).waitFor();
}

/** Starts a session from the launcher (new tab page) and waits until it is ready. */
async function startSession(page: Page): Promise<Locator> {
  await ensureAgent(page);
  await page.locator('.pane.focused .tab-new').click();
  const panel = page.getByTestId('launcher-new-session');
  await panel.waitFor();
  await panel.getByTestId('new-session-agent').selectOption({ label: AGENT });
  await panel.getByTestId('new-session-folder').fill(work);
  await panel.getByTestId('new-session-start').click();
  const tab = tabPanel(page);
  await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
  return tab;
}

async function send(tab: Locator, text: string): Promise<void> {
  const input = tab.getByTestId('prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await expect.poll(() => input.inputValue()).toBe('');
}

const agentMessages = (tab: Locator) => tab.getByTestId('agent-message');

describe('session tab', () => {
  it('adds an agent through the sidebar, starts a session from the launcher and streams a markdown reply', async () => {
    const { page, errors } = await open();
    const tab = await startSession(page);
    await expect(tab.getByTestId('session-agent').innerText()).resolves.toMatch(/Scenario/);
    await expect(tab.getByTestId('session-header').innerText()).resolves.toContain(work);

    await send(tab, 'hello');
    await agentMessages(tab).filter({ hasText: 'Hello from the scenario agent.' }).waitFor();

    // echo answers with the prompt's blocks as JSON: markdown inside it is rendered.
    await send(tab, 'echo **bold move** and `inline code`');
    const reply = agentMessages(tab).filter({ hasText: 'bold move' });
    await reply.waitFor();
    await expect(reply.locator('strong').first().innerText()).resolves.toBe('bold move');
    await expect(reply.locator('code').first().innerText()).resolves.toBe('inline code');

    // Every kind of update: title → tab title, usage, plan, thought, tool call.
    await send(tab, 'updates');
    await page.locator('[role=tab][aria-selected=true] .tab-title', { hasText: 'Scenario title' }).waitFor();
    await tab.getByTestId('usage').filter({ hasText: '1.2k / 200k' }).waitFor();
    await expect(tab.getByTestId('usage').innerText()).resolves.toMatch(/\$0\.01/);
    await tab.getByTestId('plan').filter({ hasText: 'Step one' }).waitFor();
    await tab.getByTestId('thought').first().waitFor();
    await tab.getByTestId('tool-call').filter({ hasText: 'Read file' }).locator('[data-testid=tool-status]', { hasText: 'Done' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('renders hostile markdown inert: no HTML, no script, links never navigate the app', async () => {
    const { page, errors } = await open();
    const tab = await startSession(page);
    const url = page.url();
    await send(
      tab,
      'echo <img src=x onerror=window.__pwned=1> [click me](javascript:window.__pwned=2) <script>window.__pwned=3</script> [safe link](https://example.com/docs) ![pic](https://example.com/t.png)',
    );
    const reply = agentMessages(tab).filter({ hasText: 'click me' });
    await reply.waitFor();
    // Raw HTML is shown as text, never parsed.
    await expect(reply.innerText()).resolves.toContain('<img src=x onerror=window.__pwned=1>');
    await expect(reply.innerText()).resolves.toContain('<script>');
    expect(await reply.locator('img').count()).toBe(0);
    expect(await reply.locator('script').count()).toBe(0);
    // The javascript: link is not a link.
    expect(await reply.locator('a', { hasText: 'click me' }).count()).toBe(0);
    await reply.getByText('click me').click();
    // The http(s) link is opened by the core (system browser), not by the page.
    const safe = reply.locator('a', { hasText: 'safe link' });
    await expect(safe.getAttribute('href')).resolves.toBe('https://example.com/docs');
    await safe.click();
    await safe.click({ button: 'middle' });
    // A remote image is not fetched: it becomes a link.
    expect(await reply.locator('img').count()).toBe(0);
    await expect(reply.innerText()).resolves.toContain('pic');
    await page.waitForTimeout(300);
    expect(page.url()).toBe(url);
    expect(page.context().pages()).toHaveLength(1);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('asks for permission in the thread; answered with the keyboard; an "always" answer is reused without asking', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await send(tab, 'permission edit');
    const card = tab.getByTestId('permission-card');
    await card.waitFor();
    // Every option the agent offered, and the tab asks for attention.
    await expect(card.getByTestId('permission-option').allInnerTexts()).resolves.toEqual([
      expect.stringContaining('Allow once'),
      expect.stringContaining('Always allow'),
      expect.stringContaining('Reject'),
      expect.stringContaining('Always reject'),
    ]);
    await page.locator('[role=tab][aria-selected=true].status-attention').waitFor();
    await page.keyboard.press('1');
    await agentMessages(tab).filter({ hasText: 'permission: selected yes-just-once' }).waitFor();
    await card.waitFor({ state: 'detached' });
    await tab.getByTestId('tool-call').last().locator('[data-testid=tool-status]', { hasText: 'Done' }).waitFor();

    await send(tab, 'permission edit');
    await card.waitFor();
    await page.keyboard.press('2'); // Always allow
    await agentMessages(tab).filter({ hasText: 'permission: selected yes-forever' }).waitFor();

    await send(tab, 'permission edit');
    await expect.poll(() => agentMessages(tab).filter({ hasText: 'permission: selected yes-forever' }).count(), { timeout: 20_000 }).toBe(2);
    await expect(tab.getByTestId('permission-card').count()).resolves.toBe(0);
    await expect(tab.getByTestId('tool-call').count()).resolves.toBe(3);
    await tab.getByTestId('tool-call').last().locator('[data-testid=tool-status]', { hasText: 'Done' }).waitFor();

    // Y / N answer with the first allow / reject option.
    await send(tab, 'permission read');
    await card.waitFor();
    await page.keyboard.press('n');
    await agentMessages(tab).filter({ hasText: 'permission: selected nope' }).waitFor();
    await tab.getByTestId('tool-call').last().locator('[data-testid=tool-status]', { hasText: 'Failed' }).waitFor();
  });

  it('shows a terminal the agent runs, live in the thread', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await send(tab, 'terminal {"command":"sh","args":["-c","echo term-out-$((6*7)); echo second line"]}');
    const terminal = tab.getByTestId('agent-terminal');
    await terminal.locator('.xterm-rows', { hasText: 'term-out-42' }).waitFor();
    await expect(terminal.locator('.xterm-rows').innerText()).resolves.toContain('second line');
    await terminal.getByText('Process exited with code 0').waitFor();
  });

  it('Esc stops a running turn and the stop reason is shown', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await send(tab, 'slow');
    await agentMessages(tab).filter({ hasText: 'tick 3' }).waitFor();
    await page.locator('[role=tab][aria-selected=true].status-working').waitFor();
    await tab.getByTestId('prompt-input').press('Escape');
    await tab.getByTestId('stop-reason').filter({ hasText: 'Cancelled' }).waitFor();
    await tab.getByTestId('tool-call').filter({ hasText: 'Long job' }).locator('[data-testid=tool-status]', { hasText: 'Cancelled' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();
  });

  it('queues prompts sent while the agent works: shown, editable, removable, then sent in order', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await send(tab, 'slow');
    await agentMessages(tab).filter({ hasText: 'tick 1' }).waitFor();
    await send(tab, 'echo first-queued');
    await send(tab, 'echo second-queued');
    const items = tab.getByTestId('queue-item');
    await expect.poll(() => items.count()).toBe(2);
    // Edit the first, remove the second.
    await items.nth(0).getByRole('button', { name: 'Edit' }).click();
    await items.nth(0).getByRole('textbox').fill('echo edited-queued');
    await items.nth(0).getByRole('textbox').press('Enter');
    await items.filter({ hasText: 'edited-queued' }).waitFor();
    await items.nth(1).getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => items.count()).toBe(1);
    await tab.getByTestId('stop-button').click();
    await agentMessages(tab).filter({ hasText: 'edited-queued' }).waitFor();
    await expect.poll(() => items.count()).toBe(0);
    await expect(agentMessages(tab).filter({ hasText: 'second-queued' }).count()).resolves.toBe(0);
  });

  it('an agent crash fails the tab; Restart brings the session back', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await send(tab, 'crash');
    await tab.getByTestId('session-failed').waitFor();
    await page.locator('[role=tab][aria-selected=true].status-failed').waitFor();
    await tab.getByTestId('turn-error').filter({ hasText: 'The agent stopped during this turn' }).waitFor();
    await tab.getByTestId('tool-call').filter({ hasText: 'About to crash' }).locator('[data-testid=tool-status]', { hasText: 'Failed' }).waitFor();
    await tab.getByTestId('restart-agent').click();
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    await expect(tab.getByTestId('session-failed').count()).resolves.toBe(0);
    await send(tab, 'hello');
    await agentMessages(tab).filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    await page.locator('[role=tab][aria-selected=true]:not(.status-failed)').waitFor();
  });

  it('@ opens a file picker; the chosen file goes to the agent as a mention', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const input = tab.getByTestId('prompt-input');
    await input.fill('echo look at ');
    await input.press('End');
    await input.pressSequentially('@alph');
    const picker = tab.getByTestId('mention-picker');
    await picker.getByTestId('picker-item').filter({ hasText: 'src/alpha-target.ts' }).waitFor();
    await input.press('Enter');
    await picker.waitFor({ state: 'detached' });
    await expect(input.inputValue()).resolves.toBe('echo look at @src/alpha-target.ts ');
    await tab.getByTestId('mention-chip').filter({ hasText: 'src/alpha-target.ts' }).waitFor();
    await input.press('Enter');
    const reply = agentMessages(tab).filter({ hasText: 'resource_link' });
    await reply.waitFor();
    await expect(reply.innerText()).resolves.toContain(`file://${join(work, 'src', 'alpha-target.ts')}`);
    // The user's message shows the mention as a chip.
    await tab.getByTestId('user-message').last().locator('.mention-chip', { hasText: 'alpha-target.ts' }).waitFor();
  });

  it('changes a config option; the header shows what the agent answered', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const model = tab.locator('[data-testid=config-option][data-config-id=model] select');
    await expect(model.inputValue()).resolves.toBe('fast');
    await model.selectOption('smart');
    await expect.poll(() => model.inputValue()).toBe('smart');
    const think = tab.locator('[data-testid=config-option][data-config-id=think] input[type=checkbox]');
    await think.check();
    await expect.poll(() => think.isChecked()).toBe(true);
    const mode = tab.locator('[data-testid=config-option][data-config-id=mode] select');
    await mode.selectOption('code');
    await expect.poll(() => mode.inputValue()).toBe('code');
  });
});
