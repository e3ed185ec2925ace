import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentPlatformKey } from '../../src/main/core/registry/platform-key';
import { locateTool } from '../../src/main/core/registry/runtime-check';
import {
  binaryAgentArchive,
  binaryEntry,
  failingRoute,
  gatedRoute,
  pathEscapeArchive,
  publishScenarioNpmPackage,
  type Gate,
} from '../fixtures/registry/e2e-registry';
import { listTree } from '../main/registry/helpers/setup';
import { TestServer } from '../main/registry/helpers/server';
import { tempDir } from '../support/app-server';
import { appSuite } from '../support/app-suite';
import { recordCalls } from '../support/browser';
import { WAIT } from '../support/waits';

/**
 * The Registry tab end to end in Chromium: the built app in browser mode, pointed (through the UI) at
 * a registry.json served on 127.0.0.1 together with agent archives and an npm registry, and real
 * installs of agents that speak ACP (the scripted scenario agent), used in real sessions.
 */

const PLATFORM = currentPlatformKey();
if (!PLATFORM) throw new Error('these tests need a platform the registry knows');

const ICON_HOSTILE = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" onload="window.__pwned=1">
<script>window.__pwned=2</script><foreignObject><img src="x" onerror="window.__pwned=3"/></foreignObject>
<path fill="#ff0000" d="M1 1h14v14H1z"/></svg>`;

let reg: TestServer;
let npmCache: string;
let registryUrl: string;
const gates: Record<string, Gate> = {};

let agents: Array<Record<string, unknown>> = [];
const publish = () => reg.serve('/registry.json', JSON.stringify({ version: '1.0.0', agents, extensions: [] }), { type: 'application/json' });

function tinyEntry(version: string): Record<string, unknown> {
  return binaryEntry(PLATFORM!, {
    id: 'tiny-agent',
    name: 'Tiny Agent',
    version,
    description: 'A tiny scripted agent that answers over ACP',
    repository: 'https://github.com/example/tiny-agent',
    authors: ['Ada Example <ada@example.com>', 'Bob Example'],
    license: 'MIT',
    icon: './icons/tiny.svg',
    archive: reg.url(`/archives/tiny-${version}.tar.gz`),
  });
}

beforeAll(async () => {
  reg = await new TestServer().start();
  npmCache = tempDir('sb-registry-npm-cache-');
  registryUrl = reg.url('/registry.json');
  reg.serve('/icons/tiny.svg', ICON_HOSTILE, { type: 'image/svg+xml' });
  gates.tiny = gatedRoute(reg, '/archives/tiny-1.0.0.tar.gz', binaryAgentArchive('tiny-agent', '1.0.0', { padding: 64 * 1024 }));
  reg.serve('/archives/tiny-1.1.0.tar.gz', binaryAgentArchive('tiny-agent', '1.1.0'));
  gates.slow = gatedRoute(reg, '/archives/slow.tar.gz', binaryAgentArchive('slow-agent', '2.0.0', { padding: 256 * 1024 }));
  reg.serve('/archives/evil.tar.gz', pathEscapeArchive('evil-agent'));
  failingRoute(reg, '/archives/flaky.tar.gz', 503);
  publishScenarioNpmPackage(reg, '/npm/', '@sbtest/scenario-npm-agent', ['1.0.0']);
  publishScenarioNpmPackage(reg, '/npm/', '@sbtest/ghost-agent', ['1.0.0']);
  agents = [
    tinyEntry('1.0.0'),
    binaryEntry(PLATFORM, {
      id: 'slow-agent',
      name: 'Slow Agent',
      version: '2.0.0',
      description: 'Its download takes as long as the test wants',
      archive: reg.url('/archives/slow.tar.gz'),
    }),
    binaryEntry(PLATFORM, {
      id: 'evil-agent',
      name: 'Evil Agent',
      version: '0.0.1',
      description: 'Its archive writes outside the install folder',
      archive: reg.url('/archives/evil.tar.gz'),
    }),
    binaryEntry(PLATFORM, {
      id: 'flaky-agent',
      name: 'Flaky Agent',
      version: '3.0.0',
      description: 'Its download server fails at first',
      archive: reg.url('/archives/flaky.tar.gz'),
    }),
    {
      id: 'npm-scenario',
      name: 'Npm Scenario',
      version: '1.0.0',
      description: 'The scenario agent as an npm package: the quokka of agents',
      authors: ['Quentin'],
      license: 'Apache-2.0',
      distribution: { npx: { package: '@sbtest/scenario-npm-agent@1.0.0' } },
    },
    {
      id: 'ghost-agent',
      name: 'Ghost Agent',
      version: '9.9.9',
      description: 'Pins a version npm does not have',
      distribution: { npx: { package: '@sbtest/ghost-agent@9.9.9' } },
    },
    {
      id: 'py-agent',
      name: 'Python Agent',
      version: '0.3.0',
      description: 'A Python agent installed with uv',
      distribution: { uvx: { package: 'sbtest-py-agent' } },
    },
    // Not valid: listed with its reasons, not installable.
    { id: 'Broken Agent', name: 'Broken Agent', version: 'one', description: 'bad', distribution: {} },
  ];
  publish();
}, 90_000);

// After the registry above is up (hooks run in order), and stopped before it closes.
const suite = appSuite('registry', undefined, {
  env: () => ({
    npm_config_registry: reg.url('/npm/'),
    npm_config_cache: npmCache,
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  }),
});

afterAll(async () => {
  for (const g of Object.values(gates)) g.release();
  await reg?.close();
  if (npmCache) rmSync(npmCache, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  errors: string[];
  /** Contract calls the page sent (method and params), from its WebSocket. */
  calls: Array<{ method: string; params: Record<string, unknown> }>;
}

async function open(): Promise<Opened> {
  let calls: Opened['calls'] = [];
  const { page, errors } = await suite.open({
    viewport: { width: 1280, height: 900 },
    prepare: async (context) => void context.on('page', (p) => (calls = recordCalls(p))),
  });
  // Recorded from the page's creation (before it loads), so its WebSocket is seen.
  return { page, errors, calls };
}

const tab = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=registry-tab]');
const entry = (page: Page, id: string): Locator => tab(page).locator(`[data-testid=registry-entry][data-registry-id="${id}"]`);
const sidebarAgent = (page: Page, registryId: string): Locator =>
  page.getByTestId('sidebar-agents').locator(`[data-testid=agent-row][data-agent-id="registry-${registryId}"]`);

/** Opens the Registry tab from the sidebar and waits until the list has loaded (or failed). */
async function openRegistry(page: Page): Promise<Locator> {
  await page.getByTestId('registry-open').click();
  const t = tab(page);
  await t.locator('[data-testid=registry-source]:not([data-origin=loading])').waitFor({ timeout: 30_000 });
  await expect.poll(() => t.getByTestId('registry-refresh').isEnabled(), { timeout: 30_000 }).toBe(true);
  return t;
}

/** Points the app at the test's registry through the tab's source form (once; the setting is kept). */
async function useTestRegistry(page: Page): Promise<Locator> {
  const t = await openRegistry(page);
  if ((await t.getByTestId('registry-source').innerText()).includes(registryUrl)) {
    await entry(page, 'tiny-agent').waitFor();
    return t;
  }
  await t.getByTestId('registry-url-edit').click();
  // The registry.url setting's own field (the same as in Settings); saved on Enter, and the list reloads.
  const field = t.getByTestId('registry-url-form').getByTestId('setting-registry.url');
  await field.fill(registryUrl);
  await field.press('Enter');
  await entry(page, 'tiny-agent').waitFor({ timeout: 30_000 });
  return t;
}

const agentDirs = (): string[] => listTree(join(suite.app.dataDir, 'agents'));

async function startSessionAndSayHello(page: Page, card: Locator, agentId: string): Promise<void> {
  await card.getByTestId('entry-start-session').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('new-session-form').waitFor();
  await expect.poll(() => dialog.getByTestId('new-session-agent').inputValue(), { timeout: WAIT.page }).toBe(agentId);
  await dialog.getByTestId('new-session-folder').fill(suite.work);
  await dialog.getByTestId('new-session-start').click();
  await dialog.waitFor({ state: 'detached' });
  const session = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
  await session.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
  const input = session.getByTestId('prompt-input');
  await input.fill('hello');
  await input.press('Enter');
  await session.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor({ timeout: 30_000 });
}

describe('Registry tab', { timeout: 180_000 }, () => {
  it('is pointed at a registry through its source form, lists every entry (icon, details, invalid ones), searches and filters', async () => {
    const { page, errors, calls } = await open();
    // The launcher offers it too.
    await page.locator('.pane.focused .tab-new').click();
    await expect(page.getByTestId('launch-registry').innerText()).resolves.toMatch(/Install agents/);
    await page.getByTestId('launch-registry').click();
    const t = await useTestRegistry(page);
    expect(await page.locator('[role=tab] .tab-title', { hasText: /^Registry$/ }).count()).toBe(1);

    const source = t.getByTestId('registry-source');
    await expect(source.innerText()).resolves.toMatch(/Downloaded just now/);
    expect(await source.getAttribute('data-origin')).toBe('network');
    expect(await source.innerText()).toContain(registryUrl);

    // Every valid entry, with what the registry says about it.
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(7);
    const tiny = entry(page, 'tiny-agent');
    await expect(tiny.getByTestId('entry-name').innerText()).resolves.toBe('Tiny Agent');
    await expect(tiny.getByTestId('entry-version').innerText()).resolves.toBe('1.0.0');
    await expect(tiny.getByTestId('entry-description').innerText()).resolves.toBe('A tiny scripted agent that answers over ACP');
    await expect(tiny.getByTestId('entry-license').innerText()).resolves.toContain('MIT');
    await expect(tiny.getByTestId('entry-authors').innerText()).resolves.toBe('By Ada Example <ada@example.com>, Bob Example');
    await expect(tiny.getByTestId('entry-kind').innerText()).resolves.toBe('binary');
    await expect(entry(page, 'npm-scenario').getByTestId('entry-kind').innerText()).resolves.toBe('npm (npx)');
    await expect(entry(page, 'py-agent').getByTestId('entry-kind').innerText()).resolves.toBe('Python (uvx)');
    expect(await tiny.getByTestId('entry-installed-badge').count()).toBe(0);

    // The icon: a mask image made from the sanitized SVG (it takes the text colour); nothing of the hostile markup ran.
    const icon = tiny.getByTestId('entry-icon');
    await icon.waitFor();
    const mask = await icon.evaluate((el) => getComputedStyle(el).maskImage || getComputedStyle(el).webkitMaskImage);
    expect(mask).toMatch(/^url\("data:image\/svg\+xml/);
    const svg = decodeURIComponent(mask.replace(/^url\("data:image\/svg\+xml;charset=utf-8,/, '').replace(/"\)$/, ''));
    expect(svg).toContain('<path');
    expect(svg).not.toMatch(/script|onload|onerror|foreignObject|#ff0000/i);
    const color = await icon.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
    expect(color[0]).toBe(color[1]);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('svg[onload], script:not([src])').count()).toBe(0);
    // Entries without an icon show their initial.
    await expect(entry(page, 'slow-agent').getByTestId('entry-icon-fallback').innerText()).resolves.toBe('S');

    // The invalid entry is listed with why.
    const invalid = t.getByTestId('registry-invalid-entry');
    await expect(invalid.count()).resolves.toBe(1);
    const why = await invalid.innerText();
    expect(why).toContain('Broken Agent');
    expect(why).toMatch(/\/id must match pattern/);
    expect(why).toMatch(/\/distribution must NOT have fewer than 1 properties/);

    // Search: every word must match (name, description, authors, license…).
    const search = t.getByTestId('registry-search');
    await search.fill('quokka');
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(1);
    await entry(page, 'npm-scenario').waitFor();
    await expect(t.getByTestId('registry-count').innerText()).resolves.toBe('1 of 7 agents');
    await search.fill('ada mit');
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(1);
    await entry(page, 'tiny-agent').waitFor();
    await search.fill('no such agent anywhere');
    await t.getByTestId('registry-empty').waitFor();
    await t.getByTestId('registry-empty').getByRole('button', { name: /clear/i }).click();
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(7);

    // Filters: distribution types, installed (none yet).
    await t.getByTestId('registry-kind-npx').click();
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(2);
    await t.getByTestId('registry-kind-uvx').click();
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(3);
    await t.getByTestId('registry-kind-npx').click();
    await t.getByTestId('registry-kind-uvx').click();
    await t.getByTestId('registry-filter-installed').click();
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(0);
    await t.getByTestId('registry-filter-all').click();
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(7);

    // The repository link goes to the system browser (app.openExternal); the app does not navigate.
    const url = page.url();
    await tiny.getByTestId('entry-repo').click();
    await expect
      .poll(() => calls.filter((c) => c.method === 'app.openExternal').map((c) => c.params.url))
      .toEqual(['https://github.com/example/tiny-agent']);
    expect(page.url()).toBe(url);
    expect(errors).toEqual([]);
  });

  it('installs a binary agent with a progress bar (steps and bytes), marks it installed, and a session with it answers', async () => {
    const { page, errors } = await open();
    await useTestRegistry(page);
    const card = entry(page, 'tiny-agent');
    await card.getByTestId('entry-install').click();

    // The download is held half-way: the bar shows the step and the bytes.
    const progress = card.getByTestId('entry-progress');
    await progress.and(page.locator('[data-step=downloading]')).waitFor();
    await expect(card.getByTestId('entry-progress-label').innerText()).resolves.toBe('Installing 1.0.0: Downloading (step 2 of 5)');
    await expect.poll(() => card.getByTestId('entry-progress-bar').getAttribute('aria-valuenow'), { timeout: WAIT.server }).toBe('50');
    await expect(card.getByTestId('entry-progress-detail').innerText()).resolves.toMatch(/^\d+(\.\d)? KB of \d+(\.\d)? KB$/);
    expect(await card.getByTestId('entry-install').count()).toBe(0);
    gates.tiny!.release();

    await card.getByTestId('entry-installed-badge').waitFor({ timeout: 30_000 });
    await expect(card.getByTestId('entry-installed-badge').innerText()).resolves.toBe('Installed 1.0.0');
    await card.getByTestId('entry-progress').waitFor({ state: 'detached' });
    // It is now one of the agents (the sidebar lists it), installed under the data folder.
    await sidebarAgent(page, 'tiny-agent').waitFor();
    expect(agentDirs()).toContain('tiny-agent/1.0.0/tiny-agent/cmd');
    // The installed filter shows it.
    await tab(page).getByTestId('registry-filter-installed').click();
    await expect(tab(page).getByTestId('registry-entry').count()).resolves.toBe(1);
    await tab(page).getByTestId('registry-filter-all').click();

    await startSessionAndSayHello(page, entry(page, 'tiny-agent'), 'registry-tiny-agent');
    expect(errors).toEqual([]);
  });

  it('updates in one click, rolls back, keeps argument and environment overrides, and uninstalls after a confirmation', async () => {
    const { page, errors } = await open();
    const t = await useTestRegistry(page);
    const card = entry(page, 'tiny-agent');
    await card.locator('[data-testid=entry-installed-badge], [data-testid=entry-install]').first().waitFor();
    if ((await card.getByTestId('entry-installed-badge').count()) === 0) {
      // Run on its own: install 1.0.0 first.
      gates.tiny!.release();
      await card.getByTestId('entry-install').click();
      await card.getByTestId('entry-installed-badge').waitFor({ timeout: 30_000 });
    }
    expect(await card.getAttribute('data-installed-version')).toBe('1.0.0');

    // The registry publishes 1.1.0.
    agents = agents.map((a) => (a.id === 'tiny-agent' ? tinyEntry('1.1.0') : a));
    publish();
    await t.getByTestId('registry-refresh').click();
    await card.getByTestId('entry-update-badge').waitFor();
    await expect(card.getByTestId('entry-update-badge').innerText()).resolves.toBe('Update available: 1.1.0');
    await t.getByTestId('registry-filter-updates').click();
    await expect(t.getByTestId('registry-entry').count()).resolves.toBe(1);
    await t.getByTestId('registry-filter-all').click();
    await expect(page.getByTestId('registry-updates').innerText()).resolves.toBe('1 update available');

    await card.getByTestId('entry-update').click();
    await expect.poll(() => card.getAttribute('data-installed-version'), { timeout: 30_000 }).toBe('1.1.0');
    await expect(card.getByTestId('entry-installed-badge').innerText()).resolves.toBe('Installed 1.1.0');
    expect(await card.getByTestId('entry-update-badge').count()).toBe(0);
    expect(reg.requestsFor('/archives/tiny-1.1.0.tar.gz')).toBe(1);

    // Rollback switches back; the newer one stays installed, so updating again needs no download.
    await expect(card.getByTestId('entry-rollback').innerText()).resolves.toBe('Roll back to 1.0.0');
    await card.getByTestId('entry-rollback').click();
    await expect.poll(() => card.getAttribute('data-installed-version'), { timeout: WAIT.agent }).toBe('1.0.0');
    await card.getByTestId('entry-update-badge').waitFor();
    await expect(card.getByTestId('entry-rollback').innerText()).resolves.toBe('Roll back to 1.1.0');
    await card.getByTestId('entry-update').click();
    await expect.poll(() => card.getAttribute('data-installed-version'), { timeout: WAIT.agent }).toBe('1.1.0');
    expect(reg.requestsFor('/archives/tiny-1.1.0.tar.gz')).toBe(1);

    // Overrides of arguments and environment.
    await card.getByTestId('entry-settings').click();
    const form = card.getByTestId('overrides-form');
    await form.getByTestId('overrides-replace').check();
    await form.getByTestId('overrides-args').fill('--flag-from-test\nsecond arg');
    await form.getByTestId('overrides-env').fill('not a pair');
    await form.getByRole('alert').waitFor();
    expect(await form.getByTestId('overrides-save').isDisabled()).toBe(true);
    await form.getByTestId('overrides-env').fill('TINY_MODE=fast');
    await form.getByTestId('overrides-save').click();
    await form.waitFor({ state: 'detached' });
    await card.getByTestId('entry-settings').click();
    await expect(form.getByTestId('overrides-command').innerText()).resolves.toMatch(/tiny-agent[/\\]1\.1\.0[/\\].*cmd --flag-from-test "second arg"$/);
    await expect(form.getByTestId('overrides-env').inputValue()).resolves.toBe('TINY_MODE=fast');
    // They survive a rollback.
    await form.getByRole('button', { name: 'Cancel' }).click();
    await card.getByTestId('entry-rollback').click();
    await expect.poll(() => card.getAttribute('data-installed-version'), { timeout: WAIT.agent }).toBe('1.0.0');
    await card.getByTestId('entry-settings').click();
    await expect(form.getByTestId('overrides-command').innerText()).resolves.toMatch(/tiny-agent[/\\]1\.0\.0[/\\].*cmd --flag-from-test "second arg"$/);
    await form.getByRole('button', { name: 'Cancel' }).click();

    // Uninstall asks first; "Keep it" keeps it.
    await card.getByTestId('entry-uninstall').click();
    await card.getByTestId('entry-uninstall-confirm').waitFor();
    await card.getByTestId('entry-uninstall-no').click();
    await card.getByTestId('entry-uninstall-confirm').waitFor({ state: 'detached' });
    expect(await card.getByTestId('entry-installed-badge').count()).toBe(1);
    await card.getByTestId('entry-uninstall').click();
    await card.getByTestId('entry-uninstall-yes').click();
    await card.getByTestId('entry-install').waitFor();
    expect(await card.getByTestId('entry-installed-badge').count()).toBe(0);
    await sidebarAgent(page, 'tiny-agent').waitFor({ state: 'detached' });
    expect(agentDirs().filter((p) => p.startsWith('tiny-agent'))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('cancelling mid-download leaves no installed agent and no files', async () => {
    const { page, errors } = await open();
    await useTestRegistry(page);
    const card = entry(page, 'slow-agent');
    await card.getByTestId('entry-install').click();
    await card.getByTestId('entry-progress').and(page.locator('[data-step=downloading]')).waitFor();
    await expect.poll(() => card.getByTestId('entry-progress-bar').getAttribute('aria-valuenow'), { timeout: WAIT.server }).toBe('50');
    await card.getByTestId('entry-cancel').click();
    await expect(card.getByTestId('entry-note').innerText()).resolves.toMatch(/Installation cancelled: nothing was kept/);
    await card.getByTestId('entry-install').waitFor();
    expect(await card.getByTestId('entry-progress').count()).toBe(0);
    expect(await card.getByTestId('entry-installed-badge').count()).toBe(0);
    expect(await sidebarAgent(page, 'slow-agent').count()).toBe(0);
    expect(agentDirs().filter((p) => p.startsWith('slow-agent') || (p.startsWith('.staging/') && p.includes('slow')))).toEqual([]);
    // A reload shows the same: not installed.
    await page.reload();
    await page.getByTestId('workspace').waitFor();
    await openRegistry(page);
    await entry(page, 'slow-agent').getByTestId('entry-install').waitFor();
    expect(await sidebarAgent(page, 'slow-agent').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('refuses a hostile archive (path escape) and says why; nothing is written', async () => {
    const { page } = await open();
    await useTestRegistry(page);
    const card = entry(page, 'evil-agent');
    await card.getByTestId('entry-install').click();
    const error = card.getByTestId('entry-error');
    await error.waitFor({ timeout: 30_000 });
    await expect(error.getByTestId('entry-error-message').innerText()).resolves.toBe(
      'refused the archive: "../escaped-by-archive.txt" escapes the target folder (..)',
    );
    await expect(error.innerText()).resolves.toMatch(/^Installation failed:/);
    expect(await card.getByTestId('entry-installed-badge').count()).toBe(0);
    expect(await sidebarAgent(page, 'evil-agent').count()).toBe(0);
    const everything = listTree(suite.app.dataDir);
    expect(everything.filter((p) => p.includes('escaped-by-archive') || p.startsWith('agents/evil-agent'))).toEqual([]);
    await error.getByRole('button', { name: 'Dismiss' }).click();
    await error.waitFor({ state: 'detached' });
  });

  it('shows a download failure with Retry, and Retry installs once the server answers', async () => {
    const { page } = await open();
    await useTestRegistry(page);
    const card = entry(page, 'flaky-agent');
    await card.getByTestId('entry-install').click();
    const error = card.getByTestId('entry-error');
    await error.waitFor({ timeout: 30_000 });
    await expect(error.getByTestId('entry-error-message').innerText()).resolves.toMatch(/503/);
    reg.serve('/archives/flaky.tar.gz', binaryAgentArchive('flaky-agent', '3.0.0'));
    await error.getByTestId('entry-retry').click();
    await card.getByTestId('entry-installed-badge').waitFor({ timeout: 30_000 });
    expect(await card.getByTestId('entry-error').count()).toBe(0);
    await sidebarAgent(page, 'flaky-agent').waitFor();
  });

  it('shows npm’s ETARGET (no such version) clearly', async () => {
    const { page } = await open();
    await useTestRegistry(page);
    const card = entry(page, 'ghost-agent');
    await card.getByTestId('entry-install').click();
    const error = card.getByTestId('entry-error');
    await error.waitFor({ timeout: 120_000 });
    await expect(error.getByTestId('entry-error-message').innerText()).resolves.toMatch(
      /^@sbtest\/ghost-agent@9\.9\.9 is not available on the npm registry.*no such version\. `npm view @sbtest\/ghost-agent versions`/,
    );
    expect(await card.getByTestId('entry-installed-badge').count()).toBe(0);
  });

  it.skipIf(locateTool('uv', { env: { PATH: process.env.PATH ?? '' }, home: homedir() }) !== null)(
    'says what is missing when the runtime is not there (uv), with how to get it',
    async () => {
      const { page, calls } = await open();
      await useTestRegistry(page);
      const card = entry(page, 'py-agent');
      await card.getByTestId('entry-install').click();
      const error = card.getByTestId('entry-error');
      await error.waitFor({ timeout: 30_000 });
      await expect(error.getByTestId('entry-error-message').innerText()).resolves.toMatch(/^uv is needed to install Python Agent/);
      const missing = error.locator('[data-testid=runtime-missing][data-tool=uv]');
      await missing.waitFor();
      await expect(missing.innerText()).resolves.toMatch(/uv was not found\. Install uv: /);
      await missing.locator('a', { hasText: 'https://docs.astral.sh/uv/getting-started/installation/' }).click();
      await expect
        .poll(() => calls.filter((c) => c.method === 'app.openExternal').map((c) => c.params.url))
        .toEqual(['https://docs.astral.sh/uv/getting-started/installation/']);
      // Checking again (still missing) keeps the advice.
      await error.getByTestId('runtime-recheck').click();
      await expect.poll(() => calls.filter((c) => c.method === 'registry.runtimeCheck').length, { timeout: WAIT.server }).toBe(2);
      await missing.waitFor();
      expect(await card.getByTestId('entry-installed-badge').count()).toBe(0);
    },
  );

  it('installs an npm agent (from an npm registry on 127.0.0.1) and starts a session with it', async () => {
    const { page, errors } = await open();
    await useTestRegistry(page);
    const card = entry(page, 'npm-scenario');
    await card.getByTestId('entry-install').click();
    await card.getByTestId('entry-installed-badge').waitFor({ timeout: 120_000 });
    await expect(card.locator('[data-testid=entry-kind].reg-kind.current').innerText()).resolves.toBe('npm (npx)');
    await sidebarAgent(page, 'npm-scenario').waitFor();
    await startSessionAndSayHello(page, card, 'registry-npm-scenario');
    expect(errors).toEqual([]);
  });

  it('keeps showing the last copy when the registry cannot be reached, and says so', async () => {
    const { page } = await open();
    const t = await useTestRegistry(page);
    reg.routes.set('/registry.json', (req) => req.socket.destroy());
    try {
      await t.getByTestId('registry-refresh').click();
      const source = t.getByTestId('registry-source');
      await expect.poll(() => source.innerText(), { timeout: 30_000 }).toMatch(/^Offline: showing the copy from .+\. The last refresh failed: /);
      await expect(t.getByTestId('registry-entry').count()).resolves.toBe(7);
      // A server that answers, but not with the registry, is not "offline".
      failingRoute(reg, '/registry.json', 500);
      await t.getByTestId('registry-refresh').click();
      await expect
        .poll(() => source.innerText(), { timeout: 30_000 })
        .toMatch(/^The registry could not be refreshed: showing the copy from .+\. The last refresh failed: .*answered 500/);
      await expect(t.getByTestId('registry-entry').count()).resolves.toBe(7);
    } finally {
      publish();
    }
    await t.getByTestId('registry-refresh').click();
    await expect.poll(() => t.getByTestId('registry-source').innerText(), { timeout: WAIT.server }).toMatch(/^Downloaded just now/);
  });
});

describe('layout', { timeout: 90_000 }, () => {
  it('the Registry tab is reopened after a reload', async () => {
    const { page, calls } = await open();
    const registryTabs = () => page.locator('[role=tab]').filter({ has: page.locator('.tab-title', { hasText: /^Registry$/ }) });
    const restoredAlready = (await registryTabs().count()) > 0;
    await useTestRegistry(page);
    // Once the layout with the Registry tab has been saved (by this page, or an earlier one)…
    if (!restoredAlready) {
      await expect
        .poll(() => calls.some((c) => c.method === 'settings.set' && c.params.key === 'workspace.layout' && JSON.stringify(c.params.value).includes('"kind":"registry"')))
        .toBe(true);
    }
    await page.reload();
    await page.getByTestId('workspace').waitFor();
    const restored = registryTabs();
    await expect(restored.count()).resolves.toBe(1);
    await restored.click();
    await tab(page).getByTestId('registry-entry').first().waitFor();
  });
});
