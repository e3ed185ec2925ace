import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/** ACP subagent sessions (issue 42) in Chromium: the child under the tool call that started it, streaming, then ended. */

const suite = appSuite('subagents');

describe('ACP subagent sessions', { timeout: 120_000 }, () => {
  it('shows the child under its parent with its own streaming thread, and shows it ended once cancelled', async () => {
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Delegating Agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    await sendPrompt(tab, 'subagent hold');

    const card = tab.locator('[data-testid=subagent]');
    await card.filter({ hasText: 'Test writer' }).waitFor();
    // Right under the Task tool call that started it, working, its own thread streaming.
    await card.and(tab.locator('[data-state=working]')).waitFor();
    await card.getByTestId('subagent-thread').getByTestId('agent-message').filter({ hasText: 'Child started: reading parser.ts.' }).waitFor();
    await expect(card.getByTestId('subagent-state').innerText()).resolves.toContain('Running');
    // The child's text is its own: not in the parent's messages.
    expect(await tab.locator('.subagent ~ [data-testid=agent-message], [data-testid=agent-message]').filter({ hasText: 'Child started' }).count()).toBe(1);

    await card.getByTestId('subagent-cancel').click();
    await card.and(tab.locator('[data-state=ended]')).waitFor();
    await expect(card.getByTestId('subagent-state').innerText()).resolves.toContain('Ended (cancelled)');
    await tab.getByTestId('agent-message').filter({ hasText: 'Subagent finished.' }).waitFor();
    expect(await card.getByTestId('subagent-cancel').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
