import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/app-server';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { holdAnswers } from '../support/ws-hold';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/** The Settings tab: opened with Ctrl+, searched, applied at once everywhere (this window, others, Monaco, xterm). */

const suite = appSuite('settings');
const open = () => suite.open({ empty: true });

const settingsTab = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=settings-tab]');
const sectionIds = (page: Page) => settingsTab(page).getByTestId('settings-section').evaluateAll((els) => els.map((e) => e.getAttribute('data-section')));

async function openSettings(page: Page): Promise<Locator> {
  await page.keyboard.press('Control+,');
  await settingsTab(page).waitFor();
  return settingsTab(page);
}

const setTheme = async (page: Page, theme: 'system' | 'light' | 'dark') => {
  const tab = await openSettings(page);
  await tab.getByTestId('setting-appearance.theme').selectOption(theme);
};

/** Colours as the user sees them (computed), and the theme the editors and terminals were given. */
const looks = (page: Page) =>
  page.evaluate(() => {
    const css = (sel: string, prop: 'color' | 'backgroundColor' | 'fontSize') => {
      const el = document.querySelector(sel);
      return el ? getComputedStyle(el)[prop] : null;
    };
    // The diff's editors (not its gutter, which also has the class).
    const monaco = document.querySelector('[data-testid=monaco-diff] .monaco-editor:not(.gutter)');
    return {
      theme: document.documentElement.dataset.theme,
      body: css('body', 'backgroundColor'),
      thread: css('[data-testid=thread]', 'color'),
      monacoDark: monaco ? monaco.classList.contains('vs-dark') : null,
      monacoFont: css('[data-testid=monaco-diff] .monaco-editor:not(.gutter) .view-lines', 'fontSize'),
      xterm: css('[data-testid=meta-terminal] .xterm-scrollable-element', 'backgroundColor'),
      xtermFont: css('[data-testid=meta-terminal] .xterm-rows', 'fontSize'),
    };
  });

const DARK_BG = 'rgb(30, 31, 34)';
const LIGHT_BG = 'rgb(255, 255, 255)';

describe('settings', { timeout: 180_000 }, () => {
  it('opens with Ctrl+, (and from the launcher); the search narrows the sections', async () => {
    const { page, errors } = await open();
    const tab = await openSettings(page);
    await expect(sectionIds(page)).resolves.toEqual(['general', 'agents', 'hosts', 'permissions', 'mcp', 'notifications', 'supervision', 'history', 'checkpoints', 'worktrees', 'containers', 'usage', 'registry', 'keyboard']);
    const search = tab.getByTestId('settings-search');
    await search.fill('flood');
    await expect.poll(() => sectionIds(page), { timeout: WAIT.page }).toEqual(['supervision']);
    await search.fill('backups');
    await expect.poll(() => sectionIds(page), { timeout: WAIT.page }).toEqual(['history']);
    await search.fill('font size');
    await expect.poll(() => sectionIds(page), { timeout: WAIT.page }).toEqual(['general']);
    await search.fill('no such thing anywhere');
    await expect.poll(() => sectionIds(page), { timeout: WAIT.page }).toEqual([]);
    await tab.getByTestId('settings-no-match').waitFor();
    await search.fill('');
    // The shortcuts table lists the shortcut that opened it.
    await expect(tab.getByTestId('shortcuts-table').innerText()).resolves.toMatch(/Settings\s+Ctrl \+ ,/);
    // One Settings tab: the launcher focuses it.
    await page.keyboard.press('Control+t');
    await page.locator('.tab-panel:not([hidden])').getByTestId('launch-settings').click();
    await settingsTab(page).waitFor();
    await expect(page.locator('[role=tab]', { hasText: 'Settings' }).count()).resolves.toBe(1);
    expect(errors).toEqual([]);
  });

  it('the theme applies at once to the app, the thread, Monaco and xterm; font sizes too', async () => {
    const { page, errors } = await open();
    const agent = await addScenarioAgent(page, 'Themed');
    const session = await startSessionFromSidebar(page, agent, suite.work);
    // A file the agent writes (shown in a Monaco diff) and a terminal in the thread (xterm).
    await sendPrompt(session, `write ${join(suite.work, 'themed.txt')} themed by settings`);
    await session.getByTestId('agent-message').filter({ hasText: '"ok":true' }).waitFor();
    await sendPrompt(session, 'terminal-meta');
    await session.locator('[data-testid=meta-terminal] .xterm-rows', { hasText: 'META-OUTPUT' }).waitFor();
    await session.getByTestId('files-button').click();
    await session.getByTestId('files-panel').locator('[data-testid=monaco-diff][data-ready=true]').waitFor();

    // Chromium's own scheme is light: "system" is light.
    await expect(looks(page)).resolves.toMatchObject({ theme: 'light', body: LIGHT_BG, monacoDark: false, xterm: LIGHT_BG });
    const lightThread = (await looks(page)).thread;

    // Split: the session stays in view while Settings opens in the other pane.
    await page.getByRole('button', { name: 'Split right' }).first().click();
    await setTheme(page, 'dark');
    await expect.poll(() => looks(page), { timeout: WAIT.page }).toMatchObject({ theme: 'dark', body: DARK_BG, monacoDark: true, xterm: DARK_BG });
    const dark = await looks(page);
    expect(dark.thread).not.toBe(lightThread);
    expect(dark.thread).toBe('rgb(219, 222, 225)');

    const tab = settingsTab(page);
    for (const [key, size] of [['appearance.terminalFontSize', '17'], ['appearance.editorFontSize', '16']] as const) {
      await tab.getByTestId(`setting-${key}`).fill(size);
      await tab.getByTestId(`setting-${key}`).press('Enter');
    }
    await expect.poll(async () => (await looks(page)).xtermFont, { timeout: WAIT.page }).toBe('17px');
    await expect.poll(async () => (await looks(page)).monacoFont, { timeout: WAIT.page }).toBe('16px');

    await tab.getByTestId('setting-appearance.theme').selectOption('light');
    await expect.poll(() => looks(page), { timeout: WAIT.page }).toMatchObject({ theme: 'light', body: LIGHT_BG, monacoDark: false, xterm: LIGHT_BG, thread: lightThread });
    expect(errors).toEqual([]);
  });

  it('a shortcut is changed by pressing its new keys; a combination taken elsewhere is moved only when asked; the change is kept', async () => {
    const { page, errors } = await open();
    const tabCount = () => page.locator('[role=tab]').count();
    const row = (id: string) => settingsTab(page).locator(`[data-testid=shortcut-row][data-command="${id}"]`);
    const tab = await openSettings(page);
    await tab.getByTestId('settings-search').fill('new tab');
    await expect(row('tabs.new').innerText()).resolves.toContain('Ctrl + T');

    await row('tabs.new').getByRole('button', { name: 'Change' }).click();
    await row('tabs.new').getByTestId('shortcut-recording').waitFor();
    // While recording, the old keys do nothing but get recorded: no new tab opens.
    const before = await tabCount();
    await page.keyboard.press('Control+Alt+n');
    await expect.poll(() => row('tabs.new').innerText(), { timeout: WAIT.page }).toContain('Ctrl + Alt + N');
    expect(await tabCount()).toBe(before);
    await expect(row('tabs.new').innerText()).resolves.not.toContain('Ctrl + T');

    // The new keys open a tab; the old ones no longer do.
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('Control+t');
    await page.waitForTimeout(300);
    expect(await tabCount()).toBe(before);
    await page.keyboard.press('Control+Alt+n');
    await expect.poll(tabCount, { timeout: WAIT.page }).toBe(before + 1);

    // Taken by another command: said so, and moved only on "Use it here instead".
    const settings = await openSettings(page);
    await settings.getByTestId('settings-search').fill('tab');
    await row('tabs.close').getByRole('button', { name: 'Change' }).click();
    await page.keyboard.press('Control+Alt+n');
    await expect(row('tabs.close').getByTestId('shortcut-conflict').innerText()).resolves.toMatch(/Ctrl \+ Alt \+ N.*used by “New tab”/);
    await row('tabs.close').getByRole('button', { name: 'Cancel' }).click();
    await expect(row('tabs.new').innerText()).resolves.toContain('Ctrl + Alt + N');
    await row('tabs.close').getByRole('button', { name: 'Change' }).click();
    await page.keyboard.press('Control+Alt+n');
    await row('tabs.close').getByRole('button', { name: 'Use it here instead' }).click();
    await expect.poll(() => row('tabs.close').innerText(), { timeout: WAIT.page }).toContain('Ctrl + Alt + N');
    await expect(row('tabs.new').innerText()).resolves.toMatch(/none/);

    // Kept by the core: after a reload the change is still there; Reset brings the defaults back.
    await page.reload();
    const again = await openSettings(page);
    await again.getByTestId('settings-search').fill('tab');
    await expect(row('tabs.close').innerText()).resolves.toContain('Ctrl + Alt + N');
    await row('tabs.new').getByRole('button', { name: 'Reset' }).click();
    await row('tabs.close').getByRole('button', { name: 'Reset' }).click();
    // Each Reset is shown at once; the core's echo of the first may still pass by on its way (the second wins).
    await expect.poll(() => row('tabs.new').innerText(), { timeout: WAIT.page }).toContain('Ctrl + T');
    await expect.poll(() => row('tabs.close').innerText(), { timeout: WAIT.page }).toContain('Ctrl + W');
    const c = await connectContract(suite.app);
    try {
      await expect(c.call('settings.get', { key: 'keyboard.bindings' })).resolves.toMatchObject({ entry: { value: {} } });
    } finally {
      c.close();
    }
    expect(errors).toEqual([]);
  });

  it('a setting changed in one window applies in another window on the same server', async () => {
    const a = await open();
    const b = await open();
    const bSettings = await openSettings(b.page);
    await expect(b.page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('light');
    await setTheme(a.page, 'dark');
    await expect.poll(() => b.page.evaluate(() => document.documentElement.dataset.theme), { timeout: WAIT.server }).toBe('dark');
    await expect(bSettings.getByTestId('setting-appearance.theme').inputValue()).resolves.toBe('dark');

    // A supervision setting: the other window's field follows, and the core has it.
    const field = settingsTab(a.page).getByTestId('setting-agents.idleStopMinutes');
    await field.fill('42');
    await field.press('Enter');
    await expect.poll(() => bSettings.getByTestId('setting-agents.idleStopMinutes').inputValue(), { timeout: WAIT.server }).toBe('42');
    const c = await connectContract(suite.app);
    try {
      await expect(c.call('settings.get', { key: 'agents.idleStopMinutes' })).resolves.toMatchObject({ entry: { value: 42 }, stored: true });
    } finally {
      c.close();
    }
    // A value the schema refuses is refused with the reason, and nothing changes.
    await field.fill('-3');
    await field.press('Enter');
    await expect(field.inputValue()).resolves.toBe('42');
    await setTheme(a.page, 'system');
    await expect.poll(() => b.page.evaluate(() => document.documentElement.dataset.theme), { timeout: WAIT.server }).toBe('light');
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });

  it('the checkpoint and registry sections are fields of the settings registry: units, a list one a line, back to the default', async () => {
    const { page, errors } = await open();
    const tab = await openSettings(page);
    const c = await connectContract(suite.app);
    const valueOf = async (key: string) => ((await c.call('settings.get', { key })) as { entry: { value: unknown }; stored: boolean });
    try {
      // A size shown in GB is stored in bytes.
      const perFolder = tab.getByTestId('setting-checkpoints.maxBytesPerFolder');
      await expect(perFolder.inputValue()).resolves.toBe('2');
      await perFolder.fill('3.5');
      await perFolder.press('Enter');
      await expect.poll(async () => (await valueOf('checkpoints.maxBytesPerFolder')).entry.value, { timeout: 10_000 }).toBe(3.5 * 1024 ** 3);

      // The exclude list, one pattern a line (blank lines dropped), saved on leaving the field.
      const excludes = tab.getByTestId('setting-checkpoints.excludes');
      await expect(excludes.inputValue()).resolves.toContain('node_modules/');
      await excludes.fill('logs/\n\n  *.tmp  ');
      await excludes.blur();
      await expect.poll(async () => (await valueOf('checkpoints.excludes')).entry.value, { timeout: 10_000 }).toEqual(['logs/', '*.tmp']);

      // The registry source: one control, from the registry (its placeholder says what empty means).
      const source = tab.getByTestId('setting-registry.url');
      await expect(source.getAttribute('placeholder')).resolves.toMatch(/^https:\/\/cdn\.agentclientprotocol\.com\//);
      await source.fill('ftp://example.com/registry.json');
      await source.press('Enter');
      await tab.locator('[data-key="registry.url"]').getByTestId('setting-error').filter({ hasText: /http\(s\) or file:/ }).waitFor({ timeout: 10_000 });
      await source.fill('file:///nowhere/registry.json');
      await source.press('Enter');
      await expect.poll(async () => (await valueOf('registry.url')).entry.value, { timeout: 10_000 }).toBe('file:///nowhere/registry.json');
      await tab.getByTestId('setting-reset-registry.url').click();
      await expect.poll(async () => (await valueOf('registry.url')).stored, { timeout: 10_000 }).toBe(false);
      await expect.poll(() => source.inputValue(), { timeout: 10_000 }).toBe('');
      await c.call('settings.reset', { key: 'checkpoints.maxBytesPerFolder' });
      await c.call('settings.reset', { key: 'checkpoints.excludes' });
    } finally {
      c.close();
    }
    expect(errors).toEqual([]);
  });

  it('Settings → Worktrees lists the repositories with settings of their own: edited, added by a folder of the repository, removed', async () => {
    const repoOf = (name: string) => {
      const dir = join(tempDir('sb-settings-repo-'), name);
      mkdirSync(join(dir, 'src'), { recursive: true });
      execFileSync('git', ['init', '-q', '-b', 'main', dir]);
      return realpathSync(dir);
    };
    const first = repoOf('first');
    const second = repoOf('second');
    const c = await connectContract(suite.app);
    const repos = async () => ((await c.call('settings.get', { key: 'worktrees.repos' })) as { entry: { value: Record<string, Record<string, unknown>> } }).entry.value;
    try {
      await c.call('settings.set', { key: 'worktrees.repos', value: { [first]: { setupCommand: 'npm ci' } } });
      const { page, errors } = await open();
      const section = (await openSettings(page)).getByTestId('settings-worktrees');
      await section.scrollIntoViewIfNeeded();
      const row = section.locator(`[data-repo="${first}"]`);
      await expect(row.getByTestId('settings-worktree-repo-0-setup').inputValue()).resolves.toBe('npm ci');
      // Edited in place: the timeout (saved on leaving the field) and "always a new worktree".
      await row.getByTestId('settings-worktree-repo-0-timeout').fill('90');
      await row.getByTestId('settings-worktree-repo-0-timeout').blur();
      await row.getByTestId('settings-worktree-repo-0-always').check();
      await expect.poll(repos, { timeout: WAIT.server }).toEqual({ [first]: { alwaysNewWorktree: true, setupCommand: 'npm ci', setupTimeoutSeconds: 90 } });
      // A folder that is no repository is refused with the reason; one inside a repository adds that repository.
      await section.getByTestId('settings-worktree-add-path').fill(tempDir('sb-settings-not-repo-'));
      await section.getByTestId('settings-worktree-add').click();
      await section.getByRole('alert').filter({ hasText: /not in a git repository/ }).waitFor({ timeout: WAIT.server });
      await section.getByTestId('settings-worktree-add-path').fill(join(second, 'src'));
      await section.getByTestId('settings-worktree-add').click();
      await section.locator(`[data-repo="${second}"]`).waitFor({ timeout: WAIT.server });
      await expect.poll(async () => Object.keys(await repos()).sort(), { timeout: WAIT.server }).toEqual([first, second].sort());
      // Removed after a confirmation: back to the defaults.
      await row.getByRole('button', { name: 'Remove' }).click();
      await page.getByTestId('confirm-ok').click();
      await expect.poll(async () => Object.keys(await repos()), { timeout: WAIT.server }).toEqual([second]);
      await expect(section.locator(`[data-repo="${first}"]`).count()).resolves.toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await c.call('settings.reset', { key: 'worktrees.repos' });
      c.close();
    }
  });

  it('Settings → Worktrees lists the worktrees Switchboard made that no session uses, with their unmerged commits, and removes one after a confirmation listing them', async () => {
    const repo = join(tempDir('sb-settings-leftover-'), 'project');
    mkdirSync(repo, { recursive: true });
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Test User');
    git(repo, 'config', 'user.email', 'test@example.test');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
    const c = await connectContract(suite.app);
    try {
      const made = (await c.call('worktrees.create', { kind: 'new', repo, branch: 'sb/left-behind', base: 'main' })) as { ok: true; value: { worktree: { path: string } } };
      const path = made.value.worktree.path;
      writeFileSync(join(path, 'work.txt'), 'work\n');
      git(path, 'add', 'work.txt');
      git(path, 'commit', '-q', '-m', 'Work nobody merged');
      // A branch an earlier compare mode left in the same repository: nothing of its own.
      git(repo, 'branch', 'switchboard/compare-old-1', 'main');
      const { page, errors } = await open();
      const section = (await openSettings(page)).getByTestId('settings-leftovers');
      await section.scrollIntoViewIfNeeded();
      const item = section.locator('[data-testid=settings-leftover][data-branch="sb/left-behind"]');
      await expect.poll(() => item.getByTestId('settings-leftover-loses').textContent(), { timeout: WAIT.server }).toBe('1 unmerged commit');
      await section.locator('[data-testid=settings-leftover][data-branch="switchboard/compare-old-1"]').waitFor({ timeout: WAIT.server });
      // "Remove all that lose nothing" leaves the one with unmerged work alone.
      await section.getByTestId('settings-leftovers-remove-clean').click();
      await page.getByTestId('confirm-ok').click();
      await expect.poll(() => git(repo, 'branch', '--list', 'switchboard/compare-old-1'), { timeout: WAIT.server }).toBe('');
      expect(git(repo, 'worktree', 'list')).toContain(path);
      await item.getByTestId('settings-leftover-remove').click();
      const confirm = page.getByTestId('confirm-dialog');
      await expect(confirm.getByTestId('confirm-details').textContent()).resolves.toContain('Work nobody merged');
      await confirm.getByTestId('confirm-ok').click();
      await expect.poll(() => git(repo, 'branch', '--list', 'sb/left-behind'), { timeout: WAIT.server }).toBe('');
      expect(git(repo, 'worktree', 'list')).not.toContain(path);
      await section.getByTestId('settings-leftovers-empty').waitFor({ timeout: WAIT.server });
      expect(git(repo, 'branch', '--show-current').trim()).toBe('main');
      expect(errors).toEqual([]);
    } finally {
      c.close();
    }
  });

  it('a stored value the app cannot use falls back to its default, with a notice', async () => {
    const db = new Database(join(suite.app.dataDir, 'switchboard.db'));
    try {
      const put = db.prepare(
        'INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, 0) ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json',
      );
      put.run('appearance.theme', '"purple"');
      put.run('appearance.threadFontSize', '{broken');
    } finally {
      db.close();
    }
    const { page } = await open();
    const notices = page.locator('.notice.warning');
    await notices.filter({ hasText: /Theme.*appearance\.theme.*default is used/ }).waitFor();
    await notices.filter({ hasText: /Thread font size.*not JSON/ }).waitFor();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('light');
    const tab = await openSettings(page);
    await expect(tab.getByTestId('setting-appearance.theme').inputValue()).resolves.toBe('system');
    await expect(tab.getByTestId('setting-appearance.threadFontSize').inputValue()).resolves.toBe('13');
    // Choosing a value mends it.
    await tab.getByTestId('setting-appearance.theme').selectOption('light');
    const c = await connectContract(suite.app);
    try {
      await expect.poll(async () => ((await c.call('settings.getAll', {})) as { problems: Array<{ key: string }> }).problems.map((p) => p.key), { timeout: WAIT.server }).toEqual([
        'appearance.threadFontSize',
      ]);
      await c.call('settings.reset', { key: 'appearance.threadFontSize' });
    } finally {
      c.close();
    }
  });

  it('the overview links to the supervision settings; permission rules are edited in Settings', async () => {
    const { page, errors } = await open();
    await addScenarioAgent(page, 'Ruled');
    await page.keyboard.press('Control+Shift+O');
    await page.locator('.tab-panel:not([hidden])').getByTestId('overview-supervision-settings').click();
    const tab = settingsTab(page);
    await tab.locator('[data-section=supervision]').waitFor();
    await expect(tab.getByTestId('setting-agents.autoRestart').isChecked()).resolves.toBe(true);

    const perms = tab.locator('[data-section=permissions]');
    await perms.getByTestId('rule-agent').selectOption({ label: 'Ruled' });
    await perms.getByTestId('rule-tool-kind').selectOption('execute');
    await perms.getByTestId('rule-new-decision').selectOption('reject');
    // A rule for every command is refused (no first word to match); a prefix with its command is not.
    await perms.getByTestId('rule-pattern').fill('*');
    await perms.getByTestId('rule-folder').fill(suite.work);
    await perms.getByTestId('rule-problem').filter({ hasText: 'first word' }).waitFor();
    await expect(perms.getByTestId('rule-add').isDisabled()).resolves.toBe(true);
    await perms.getByTestId('rule-pattern').fill('make');
    await perms.getByTestId('rule-preview').filter({ hasText: 'run `make *` in' }).waitFor();
    await perms.getByTestId('rule-add').click();
    const rule = perms.getByTestId('settings-permission-rule').filter({ hasText: 'Ruled' });
    await rule.waitFor();
    await expect(rule.innerText()).resolves.toContain('command starting with make *');
    await expect(rule.getByTestId('rule-decision').inputValue()).resolves.toBe('reject');
    await rule.getByTestId('rule-decision').selectOption('allow');
    const c = await connectContract(suite.app);
    try {
      await expect
        .poll(async () => ((await c.call('permissionRules.list', {})) as { rules: Array<{ toolKind: string; decision: string }> }).rules)
        .toEqual([expect.objectContaining({ toolKind: 'execute', decision: 'allow' })]);
    } finally {
      c.close();
    }
    await rule.getByTestId('rule-remove').click();
    await perms.getByTestId('permission-rules-empty').waitFor();
    expect(errors).toEqual([]);
  });

  it("Containers on a host: this machine's read, still on its way when the host was chosen, is not shown as the host's", async () => {
    const c = await connectContract(suite.app);
    const added = (await c.call('hosts.add', { target: 'nobody@sb-nowhere.invalid' })) as { id: string };
    try {
      // This machine's engine answer is held on the WebSocket until the host's is shown, as a slow engine would.
      let hold: Awaited<ReturnType<typeof holdAnswers>> | undefined;
      const { page } = await suite.open({
        empty: true,
        prepare: async (context) => {
          hold = await holdAnswers(context, (f) => f.method === 'containers.engine' && (f.params as { hostId?: string }).hostId === 'local');
        },
      });
      const tab = await openSettings(page);
      await hold!.asked;
      const section = tab.getByTestId('settings-containers');
      await section.getByTestId('containers-host').selectOption(added.id);
      const engine = section.getByTestId('containers-engine');
      await expect.poll(() => engine.innerText(), { timeout: WAIT.server }).not.toMatch(/^Connecting to/);
      const hosts = await engine.innerText();
      expect(hosts).not.toMatch(/runs containers with/);
      hold!.release();
      // Before, this machine's answer arrived now and was shown under the host's name, with its containers.
      for (let i = 0; i < 10; i++) {
        await page.waitForTimeout(100);
        expect(await engine.innerText()).toBe(hosts);
      }
    } finally {
      await c.call('hosts.remove', { hostId: added.id });
      c.close();
    }
  });
});
