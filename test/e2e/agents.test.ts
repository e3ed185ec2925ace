import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/app-server';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, startSessionFromSidebar } from '../support/ui';

/** The Agents sidebar in Chromium: adding, editing, restarting, logs, signing in (three ways), removing. */

const suite = appSuite('agents');
const open = async () => (await suite.open()).page;
const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe('agents sidebar', { timeout: 90_000 }, () => {
  it('edits overrides and the compat flag, restarts, shows the log, removes', async () => {
    const page = await open();
    const r = await addScenarioAgent(page, 'Editable', 'FOO=bar');
    await r.locator('.agent-name').click();
    await r.getByTestId('agent-details').waitFor();

    await r.getByRole('button', { name: 'Start', exact: true }).click();
    await r.and(page.locator('[data-state=running]')).waitFor({ timeout: 30_000 });
    const pid = async () => /pid (\d+)/.exec(await r.getByTestId('agent-state').innerText())?.[1];
    const first = await pid();
    expect(first).toBeTruthy();
    await r.getByTestId('agent-restart').click();
    await expect.poll(pid, { timeout: 30_000 }).not.toBe(first);
    await r.and(page.locator('[data-state=running]')).waitFor();

    await r.getByTestId('agent-edit').click();
    const form = page.getByTestId('agent-form');
    await expect(form.getByTestId('agent-env').inputValue()).resolves.toBe('FOO=bar');
    await form.getByTestId('agent-env').fill('FOO=baz\nEXTRA=1');
    await form.getByTestId('agent-compat-missing-file').check();
    await form.getByTestId('agent-save').click();
    await form.waitFor({ state: 'detached' });
    // Reopened, the form shows what was saved (it came back from the core).
    await r.getByTestId('agent-edit').click();
    await expect(form.getByTestId('agent-env').inputValue()).resolves.toBe('FOO=baz\nEXTRA=1');
    await expect(form.getByTestId('agent-compat-missing-file').isChecked()).resolves.toBe(true);
    await form.getByRole('button', { name: 'Cancel' }).click();

    await r.getByTestId('agent-log-button').click();
    const log = page.locator('.tab-panel:not([hidden]) [data-testid=agent-log]');
    await log.getByTestId('agent-log-text').filter({ hasText: 'spawn' }).waitFor();

    await r.getByTestId('agent-remove').click();
    await r.getByRole('button', { name: 'Yes' }).click();
    await r.waitFor({ state: 'detached' });
  });

  it('env-var sign-in: a password field, the session waiting for it continues', async () => {
    const page = await open();
    const r = await addScenarioAgent(page, 'Keyed', 'SCENARIO_AUTH=env_var');
    const tab = await startSessionFromSidebar(page, r, suite.work, { idle: false });
    const banner = tab.getByTestId('session-auth');
    await banner.waitFor({ timeout: 30_000 });
    await page.locator('[role=tab][aria-selected=true].status-attention').waitFor();
    const field = banner.locator('input[name=SCENARIO_API_KEY]');
    await expect(field.getAttribute('type')).resolves.toBe('password');
    await field.fill('good-key');
    await banner.getByRole('button', { name: 'Save and sign in' }).click();
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    const input = tab.getByTestId('prompt-input');
    await input.fill('hello');
    await input.press('Enter');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
  });

  it('sign-in shows in full before the first session, then only behind Accounts once the agent works', async () => {
    const page = await open();
    const r = await addScenarioAgent(page, 'Signed in', 'SCENARIO_AUTH=env_var\nSCENARIO_API_KEY=good-key');
    await r.locator('.agent-name').click();
    await r.getByTestId('agent-details').waitFor();
    await r.getByRole('button', { name: 'Start', exact: true }).click();
    await r.and(page.locator('[data-state=running]')).waitFor({ timeout: 30_000 });
    // No session yet: the sign-in methods are there.
    await r.getByTestId('auth-panel').waitFor();
    const tab = await startSessionFromSidebar(page, r, suite.work);
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    // It works: sign-in folds away behind a small Accounts toggle.
    await r.locator('.agent-name').click();
    await r.getByTestId('agent-details').waitFor({ state: 'detached' });
    await r.locator('.agent-name').click();
    await r.getByTestId('agent-accounts').waitFor();
    expect(await r.getByTestId('auth-panel').count()).toBe(0);
    await r.getByTestId('agent-accounts').click();
    await r.getByTestId('auth-panel').waitFor();
  });

  it('agent sign-in: one button', async () => {
    const page = await open();
    const r = await addScenarioAgent(page, 'Agent login', 'SCENARIO_AUTH=agent');
    const tab = await startSessionFromSidebar(page, r, suite.work, { idle: false });
    const banner = tab.getByTestId('session-auth');
    await banner.waitFor({ timeout: 30_000 });
    await banner.getByRole('button', { name: 'Log in' }).click();
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
  });

  it('terminal sign-in: runs in a terminal tab you can see; the agent restarts signed in', async () => {
    const page = await open();
    const marker = join(tempDir('sb-auth-'), 'logged-in');
    scratch.push(dirname(marker));
    const name = 'Terminal login';
    const r = await addScenarioAgent(page, name, `SCENARIO_AUTH=terminal\nSCENARIO_AUTH_FILE=${marker}`);
    const tab = await startSessionFromSidebar(page, r, suite.work, { idle: false });
    const banner = tab.getByTestId('session-auth');
    await banner.waitFor({ timeout: 30_000 });
    await banner.getByRole('button', { name: /Log in in a terminal/ }).click();
    const auth = page.locator('.tab-panel:not([hidden]) [data-testid=auth-terminal]');
    await auth.locator('.xterm-rows', { hasText: 'Logged in to the scenario agent.' }).waitFor({ timeout: 30_000 });
    await auth.getByText('Process exited with code 0').waitFor();
    expect(existsSync(marker)).toBe(true);
    await page.locator('[role=tab]', { hasText: name }).first().click();
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
  });
});
