import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 14, bugs 1, 4 and 6 end to end in Chromium: a session tab that the saved layout brings back after an
 * app restart shows the stored conversation at once (its real title and agent) and offers Reopen, and no
 * agent process starts until the user reopens it; tool output is preformatted text; a diff replaced by a
 * later update stays shown, and a new file's diff is all added content.
 */

const AGENT = 'Restored Tabs Agent';
const suite = appSuite('restored');
let work = '';
beforeEach(() => {
  work = suite.work;
});

async function open(): Promise<Page> {
  return (await suite.open()).page;
}

/** How many agent processes the app has spawned so far (each agent's log notes every spawn). */
function spawns(): number {
  const dir = join(suite.dataDir, 'logs', 'agents');
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n')
    .split('\n')
    .filter((l) => / spawn \[/.test(l)).length;
}

describe('restored tabs and tool output', { timeout: 240_000 }, () => {
  it('shows tool output as preformatted text, keeps a replaced diff and shows a new file as added', async () => {
    const page = await open();
    const row = await addScenarioAgent(page, 'Diff Agent');
    const tab = await startSessionFromSidebar(page, row, work);
    await sendPrompt(tab, 'diff-replace');
    const tool = tab.getByTestId('tool-call').filter({ hasText: 'Create pkg/__init__.py' });
    await tool.and(page.locator('[data-status=completed]')).waitFor();
    // Bug 4: command output keeps its lines and spacing, and is not Markdown.
    const output = tool.getByTestId('tool-output');
    await output.waitFor();
    expect(await output.evaluate((el) => el.tagName)).toBe('PRE');
    expect(await output.innerText()).toBe('wrote __init__.py\n# not a heading\n    indented  twice');
    expect(await tool.locator('.tool-body h1, .tool-body strong').count()).toBe(0);
    // Bug 6: the diff the update replaced is still there, labelled; the new file is all added content.
    const last = tool.getByTestId('tool-last-diff');
    await last.waitFor();
    expect(await last.innerText()).toContain('Last diff');
    const diff = last.locator('[data-testid=monaco-diff][data-ready=true]');
    await diff.waitFor();
    expect(await diff.getAttribute('data-new-file')).toBe('true');
    await diff.locator('.view-lines', { hasText: 'VERSION' }).waitFor();
    expect(await diff.locator('.line-delete, .char-delete').count()).toBe(0);
    expect(await diff.locator('.new-file-line').count()).toBeGreaterThan(0);
  });

  it('after a restart a session tab shows the stored conversation with Reopen, starting no agent until reopened', async () => {
    let page = await open();
    const row = await addScenarioAgent(page, AGENT, `SCENARIO_CAPS=loadSession,close\nSCENARIO_STORE=${join(work, '.agent-sessions.json')}`);
    let tab = await startSessionFromSidebar(page, row, work);
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    await sendPrompt(tab, 'echo falcon-question');
    await tab.getByTestId('agent-message').filter({ hasText: 'falcon-question' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    // The layout (with this tab) is saved.
    const client = await connectContract(suite.app);
    await expect
      .poll(async () => JSON.stringify(((await client.call('settings.get', { key: 'workspace.layout' })) as { entry: { value: unknown } }).entry.value))
      .toContain(sessionId);
    client.close();

    // ── Restart the app on the same data folder.
    const before = spawns();
    await suite.restart();
    page = await open();
    const transcript = page.locator(`.tab-panel:not([hidden]) [data-testid=transcript-tab][data-session-id="${sessionId}"]`);
    await transcript.waitFor();
    // The stored conversation, its real title and agent, and Reopen, at once.
    await transcript.getByTestId('transcript-entry').filter({ hasText: 'falcon-question' }).first().waitFor();
    // Its title as History knows it (the first prompt, as no title was given), on the tab too.
    const title = 'echo falcon-question';
    await expect.poll(async () => (await transcript.getByTestId('transcript-title').innerText()).trim(), { timeout: WAIT.server }).toBe(title);
    expect(await transcript.locator('.transcript-meta .session-agent').innerText()).toBe(AGENT);
    await transcript.locator('[data-testid=transcript-reopen-plan][data-mode=load]').waitFor();
    await expect.poll(() => page.locator('[role=tab][aria-selected=true]').getAttribute('title'), { timeout: WAIT.page }).toBe(title);
    expect(await page.getByText('This session is not running any more').count()).toBe(0);
    // No agent process was started for it.
    expect(spawns()).toBe(before);

    // Reopen: the session comes back live in this very tab, its conversation once.
    const tabsBefore = await page.locator('[role=tab]').count();
    await transcript.getByTestId('transcript-restore').click();
    tab = page.locator(`.tab-panel:not([hidden]) [data-testid=session-tab][data-session-id="${sessionId}"]`);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    expect(await page.locator('[role=tab]').count()).toBe(tabsBefore);
    expect(spawns()).toBe(before + 1);
    await tab.getByTestId('user-message').filter({ hasText: 'falcon-question' }).waitFor();
    await expect.poll(() => tab.getByTestId('user-message').filter({ hasText: 'falcon-question' }).count(), { timeout: WAIT.server }).toBe(1);
    await sendPrompt(tab, 'echo second-falcon');
    await tab.getByTestId('agent-message').filter({ hasText: 'second-falcon' }).waitFor();
  });

  it('a reopen the agent refuses leaves the transcript read-only with the agent’s error, and Continue offered', async () => {
    const page = await open();
    const row = await addScenarioAgent(page, 'Forgetful Agent', 'SCENARIO_CAPS=loadSession,close\nSCENARIO_LOAD_ERROR=No previous sessions found');
    const tab = await startSessionFromSidebar(page, row, work);
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    await sendPrompt(tab, 'echo plover-question');
    await tab.getByTestId('agent-message').filter({ hasText: 'plover-question' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();
    // Closing the tab ends the session; its transcript is opened from History.
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    await tab.waitFor({ state: 'detached' });
    await page.getByTestId('sidebar-history').locator(`[data-testid=history-row][data-session-id="${sessionId}"] [data-testid=history-open]`).click();
    const transcript = page.locator(`.tab-panel:not([hidden]) [data-testid=transcript-tab][data-session-id="${sessionId}"]`);
    await transcript.locator('[data-testid=transcript-reopen-plan][data-mode=load]').waitFor();
    const tabs = await page.locator('[role=tab]').count();
    await transcript.getByTestId('transcript-restore').click();
    const error = transcript.getByTestId('transcript-reopen-error');
    await error.waitFor();
    expect(await error.innerText()).toContain('No previous sessions found');
    // Still the read-only transcript, offering a new session; no live tab, no "still running".
    await transcript.getByTestId('transcript-continue-new').waitFor();
    expect(await transcript.getByTestId('transcript-live-note').count()).toBe(0);
    expect(await page.locator('[role=tab]').count()).toBe(tabs);
    await transcript.getByTestId('transcript-continue-new').click();
    await transcript.getByTestId('continue-summary').waitFor();
  });
});
