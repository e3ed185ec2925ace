import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * A permission asked for an MCP tool by its raw name (`mcp__<server>__<tool>`, as Claude names it) reads as
 * "Server · tool" on the card, the raw name kept as its tooltip; a name of another shape (markup included) is shown
 * as the text it is.
 */

const suite = appSuite('mcp-tool-title');

describe('the title of an MCP tool call', { timeout: 120_000 }, () => {
  it('reads as "Switchboard · start session" with the raw name as its tooltip, and markup in a name stays text', async () => {
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Tool Agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const card = tab.getByTestId('permission-card');

    await sendPrompt(tab, 'permission-titled mcp__switchboard-delegation__start_session');
    await card.waitFor();
    const asking = tab.getByTestId('tool-call').filter({ has: page.getByTestId('permission-card') });
    const title = asking.locator('.tool-title');
    await expect(title.innerText()).resolves.toBe('Switchboard · start session');
    await expect(title.getAttribute('title')).resolves.toBe('mcp__switchboard-delegation__start_session');
    await card.locator('[data-testid=permission-option][data-kind=allow_once]').click();
    await tab.getByTestId('agent-message').filter({ hasText: 'permission: yes-just-once' }).waitFor();

    await sendPrompt(tab, 'permission-titled mcp__<img src=x onerror="window.__pwned=1">__tool');
    await card.waitFor();
    const hostile = tab.getByTestId('tool-call').filter({ has: page.getByTestId('permission-card') }).locator('.tool-title');
    await expect(hostile.innerText()).resolves.toBe('mcp__<img src=x onerror="window.__pwned=1">__tool');
    await expect(tab.locator('.tool-title img').count()).resolves.toBe(0);
    await card.locator('[data-testid=permission-option][data-kind=reject_once]').click();
    await tab.getByTestId('agent-message').filter({ hasText: 'permission: nope' }).waitFor();
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    expect(errors).toEqual([]);
  });
});
