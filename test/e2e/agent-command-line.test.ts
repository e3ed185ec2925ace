import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { agentRow, agentsSidebar, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Issue 14, first-time user: a whole command line pasted into the agent form's Command field is split into
 * the program and its arguments (quotes and escapes as a shell would), the split is shown before saving,
 * and the agent then starts. A program that does not exist is reported as "could not start", not "exited".
 */

const suite = appSuite('command-line');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('pasting a command line into the agent form', { timeout: 90_000 }, () => {
  it('shows the split into program and arguments, saves it so, and the agent starts', async () => {
    const { page } = await suite.open();
    const { command, args: [script] } = scenarioAgentCommand();
    // An argument the agent ignores, with a space and a quote in it, to show the double-quoted form.
    const args = [script!, '--note=a "b" c'];
    await agentsSidebar(page).getByTestId('add-custom-agent').click();
    const form = page.getByTestId('agent-form');
    await form.getByTestId('agent-name').fill('Pasted Line');
    // The program path unquoted, the script path single-quoted, an argument double-quoted (its quotes escaped).
    await form.getByTestId('agent-command').fill(`${command} ${quote(args[0]!)} "--note=a \\"b\\" c"`);
    const split = form.getByTestId('agent-command-split');
    await split.waitFor();
    expect(await split.getByTestId('agent-command-program').innerText()).toBe(command);
    expect(await split.getByTestId('agent-command-arg').allInnerTexts()).toEqual(args);
    await form.getByTestId('agent-save').click();
    await form.waitFor({ state: 'detached' });

    const row = agentRow(page, 'Pasted Line');
    await row.waitFor();
    const tab = await startSessionFromSidebar(page, row, suite.work);
    await sendPrompt(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
  });

  it('refuses a line it cannot split, and says a missing program could not start', async () => {
    const { page } = await suite.open();
    await agentsSidebar(page).getByTestId('add-custom-agent').click();
    const form = page.getByTestId('agent-form');
    await form.getByTestId('agent-name').fill('Broken Line');
    await form.getByTestId('agent-command').fill(`bash 'unclosed`);
    await form.getByTestId('agent-command-split').filter({ hasText: 'single quote is not closed' }).waitFor();
    await form.getByTestId('agent-save').click();
    await form.getByRole('alert').filter({ hasText: 'single quote is not closed' }).waitFor();

    await form.getByTestId('agent-command').fill('/no/such/dir/agent.sh --acp');
    await form.getByTestId('agent-save').click();
    await form.waitFor({ state: 'detached' });
    const row = agentRow(page, 'Broken Line');
    await row.getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-folder').fill(suite.work);
    await dialog.getByTestId('new-session-start').click();
    const failed = page.locator('.tab-panel:not([hidden]) .start-error');
    await failed.waitFor();
    expect(await failed.innerText()).toContain('could not start: no such program "/no/such/dir/agent.sh"');
    expect(await failed.innerText()).not.toContain('exited');
  });
});
