import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { connectContract } from '../support/contract-client';
import { addScenarioAgent, sendPrompt, tabButtonOf, startSessionFromSidebar } from '../support/ui';

/** Permission rules are no wider than what the user was shown, answer with "once", and say so in the thread. */

const suite = appSuite('permission-rules');
const agentMessages = (tab: Locator) => tab.getByTestId('agent-message');
const settingsTab = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=settings-tab]');

describe('permission rules', { timeout: 120_000 }, () => {
  it('"Always allow" on `echo always > a.txt` answers `echo again` in this folder with "once", says so with a link to the rule, and asks for anything else', async () => {
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Echo Agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const card = tab.getByTestId('permission-card');

    await sendPrompt(tab, 'ask-run echo always > a.txt');
    await card.waitFor();
    const always = card.locator('[data-testid=permission-option][data-kind=allow_always]');
    await expect(always.innerText()).resolves.toContain(`don't ask again for echo commands in ${basename(suite.work)}`);
    // What Switchboard will remember, before the user chooses it.
    const remembers = card.locator('[data-testid=permission-option-rule][data-option-id=allow-always]');
    await expect(remembers.innerText()).resolves.toBe(`2. Always allow makes Switchboard remember: run echo * in ${basename(suite.work)}`);
    await expect(remembers.locator('code').innerText()).resolves.toBe('echo *');
    await always.click();
    await agentMessages(tab).filter({ hasText: 'ask-run echo always > a.txt: selected allow-always' }).waitFor();
    await card.waitFor({ state: 'detached' });

    // Another command still asks.
    await sendPrompt(tab, 'ask-run rm -rf x');
    await card.waitFor();
    await card.locator('[data-testid=permission-option][data-kind=reject_once]').click();
    await agentMessages(tab).filter({ hasText: 'ask-run rm -rf x: selected reject' }).waitFor();
    await card.waitFor({ state: 'detached' });

    // Another echo: answered by the rule, with "allow once", and the thread says which rule answered.
    await sendPrompt(tab, 'ask-run echo again');
    await agentMessages(tab).filter({ hasText: 'ask-run echo again: selected allow-once' }).waitFor();
    await expect(card.count()).resolves.toBe(0);
    const ruled = tab.getByTestId('tool-call').filter({ hasText: 'echo again' }).getByTestId('rule-answer');
    await expect(ruled.innerText()).resolves.toContain(`Allowed by rule: Echo Agent · run echo * in ${basename(suite.work)}`);
    await expect(ruled.locator('code').innerText()).resolves.toBe('echo *');
    await expect(tab.getByTestId('rule-answer').count()).resolves.toBe(1);

    // It is part of the session: still there after the page is loaded again (once the layout that reopens
    // its tab is saved).
    const sessionId = await tab.getAttribute('data-session-id');
    const c = await connectContract(suite.app);
    try {
      await expect
        .poll(async () => JSON.stringify(((await c.call('settings.get', { key: 'workspace.layout' })) as { entry: { value: unknown } }).entry.value), { timeout: 10_000 })
        .toContain(sessionId);
    } finally {
      c.close();
    }
    await page.reload();
    await page.getByTestId('workspace').waitFor({ timeout: 60_000 });
    const again = page.locator(`[data-testid=session-tab][data-session-id="${sessionId}"]`);
    const ruledAgain = again.getByTestId('tool-call').filter({ hasText: 'echo again' }).getByTestId('rule-answer');
    await ruledAgain.waitFor();

    // The link opens the rule on the permissions page, every part of it shown.
    const ruleId = await ruledAgain.getAttribute('data-rule-id');
    await ruledAgain.getByTestId('rule-answer-link').click();
    const rule = settingsTab(page).locator(`[data-testid=settings-permission-rule][data-rule-id="${ruleId}"]`);
    await rule.and(page.locator('[aria-current=true]')).waitFor();
    const text = await rule.innerText();
    expect(text).toContain('Echo Agent');
    expect(text).toContain('execute');
    expect(text).toContain('command starting with echo *');
    expect(text).toContain(suite.work);
    expect(text).toContain('any');

    // Another project folder still asks.
    const other = realpathSync(tempDir('sb-permission-rules-other-'));
    const elsewhere = await startSessionFromSidebar(page, page.getByTestId('sidebar-agents').getByTestId('agent-row').filter({ hasText: 'Echo Agent' }), other);
    await sendPrompt(elsewhere, 'ask-run echo again');
    const otherCard = elsewhere.getByTestId('permission-card');
    await otherCard.waitFor();
    await otherCard.locator('[data-testid=permission-option][data-kind=reject_once]').click();
    await agentMessages(elsewhere).filter({ hasText: 'ask-run echo again: selected reject' }).waitFor();

    // Forgotten on the permissions page: the thread still says what answered, and its link says the rule is gone.
    await page.locator('[role=tab]', { hasText: 'Settings' }).click();
    await rule.getByTestId('rule-remove').click();
    await rule.waitFor({ state: 'detached' });
    await (await tabButtonOf(page, again)).click();
    await ruledAgain.getByTestId('rule-answer-link').click();
    await settingsTab(page).getByTestId('permission-rule-gone').waitFor();
    expect(errors).toEqual([]);
  });

  it('lists the rule files an agent answers from itself, opens each, and says those answers never reach Switchboard', async () => {
    const project = realpathSync(tempDir('sb-permission-rules-claude-'));
    mkdirSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.claude', 'settings.local.json'), JSON.stringify({ permissions: { allow: ['Bash(echo no *)'] } }, null, 2));
    const { page, errors } = await suite.open({ empty: true });
    // Named like Claude, so Switchboard looks for Claude's rule files.
    const row = await addScenarioAgent(page, 'Claude (scenario)');
    await startSessionFromSidebar(page, row, project);
    await page.keyboard.press('Control+,');
    const files = settingsTab(page).locator('[data-section=permissions]').getByTestId('agent-rule-files');
    await expect(files.innerText()).resolves.toMatch(/never reach Switchboard/);
    const file = files.getByTestId('agent-rule-file').filter({ hasText: join(project, '.claude', 'settings.local.json') });
    await expect(file.innerText()).resolves.toContain('1 entry');
    await file.getByTestId('agent-rule-file-open').click();
    const viewer = page.locator('.tab-panel:not([hidden]) [data-testid=file-view]');
    await viewer.locator('[data-testid=monaco-viewer][data-ready=true] .view-lines', { hasText: 'Bash(echo no *)' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a card shows a right-to-left override in the label as it is, warns, and the "always" answer stores no rule', async () => {
    const { page } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'RLO Agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const options = JSON.stringify([
      { optionId: 'yes-sneaky', name: '\u202Etcejer', kind: 'allow_always' },
      { optionId: 'nope', name: 'No', kind: 'reject_once' },
    ]);
    await sendPrompt(tab, `permission execute ${options}`);
    const card = tab.getByTestId('permission-card');
    await card.waitFor();
    const sneaky = card.locator('[data-testid=permission-option][data-kind=allow_always]');
    // The override is shown as a token, not acted on; the warning says what the label shows.
    await expect(sneaky.getByTestId('permission-option-name').innerText()).resolves.toBe('“<U+202E>tcejer”');
    await expect(card.getByTestId('permission-warning').innerText()).resolves.toMatch(/“reject”, but it would always allow[\s\S]*hidden direction controls/);
    await expect(card.getByTestId('permission-option-rule').count()).resolves.toBe(0);
    // Even confirmed, the main process refuses the rule: nothing is answered, and the card stays.
    await sneaky.click();
    await card.getByTestId('permission-confirm-yes').click();
    await page.locator('.notice.error', { hasText: 'Switchboard stores no rule from it' }).waitFor();
    await card.locator('[data-testid=permission-option][data-kind=reject_once]').click();
    await agentMessages(tab).filter({ hasText: 'permission: selected nope' }).waitFor();
    const c = await connectContract(suite.app);
    try {
      const { rules } = (await c.call('permissionRules.list', {})) as { rules: Array<{ label: string | null }> };
      expect(rules.filter((r) => r.label?.includes('tcejer'))).toEqual([]);
    } finally {
      c.close();
    }
  });
});
