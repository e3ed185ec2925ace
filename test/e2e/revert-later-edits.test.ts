import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 36 §3 in Chromium: "Revert file" in a turn's review never drops the user's own later edit without asking.
 * The agent rewrites a line, the user then rewrites the same line by hand; reverting the agent's turn is refused
 * with the lines that would be lost and a "Put it back anyway (lose these lines)" button, which puts the file
 * back as it was before the turn (and can be undone).
 */

const suite = appSuite('revert-later-edits');

describe('reverting a turn whose lines the user edited since', { timeout: 180_000 }, () => {
  it('shows the lines that would be lost, keeps the file until asked, and "Put it back anyway" puts it back', async () => {
    const folder = tempDir('sb-revert-later-');
    const file = join(folder, 'plan.txt');
    const before = 'alpha\nbravo\ncharlie\n';
    writeFileSync(file, before);
    const { page } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, `Planner ${Math.random().toString(36).slice(2, 7)}`);
    const tab = await startSessionFromSidebar(page, row, folder);
    await sendPrompt(tab, 'write-here plan.txt alpha\\nbravo by the agent\\ncharlie\\n');
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: WAIT.agent }).toBe('alpha\nbravo by the agent\ncharlie\n');
    const open = tab.getByTestId('turn-changes-open');
    await open.waitFor({ timeout: WAIT.agent });

    // The user rewrites the same line by hand, in another program.
    const mine = 'alpha\nbravo, as I want it\ncharlie\n';
    writeFileSync(file, mine);
    await open.click();
    const review = page.locator('.tab-panel:not([hidden]) [data-testid=review-tab]');
    const entry = review.getByTestId('change-file').filter({ hasText: 'plan.txt' });
    await entry.waitFor({ timeout: WAIT.server });
    const name = entry.locator('.change-file-name');
    if ((await name.getAttribute('aria-expanded')) !== 'true') await name.click();
    await review.getByTestId('revert-file').click();

    // Refused, with the user's line that would be lost, and the choice.
    const refused = review.getByTestId('restore-refused').locator('li[data-path="plan.txt"]');
    await refused.waitFor({ timeout: WAIT.server });
    expect(await refused.innerText()).toMatch(/changed again since/);
    expect((await refused.getByTestId('restore-lost').innerText()).trim()).toBe('bravo, as I want it');
    const button = refused.getByTestId('restore-overwrite');
    expect((await button.innerText()).trim()).toBe('Put it back anyway (lose these lines)');
    // Nothing was written until the user chooses.
    expect(readFileSync(file, 'utf8')).toBe(mine);

    await button.click();
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: WAIT.server }).toBe(before);
    await review.getByTestId('restore-report').filter({ hasText: 'restored' }).waitFor({ timeout: WAIT.server });
    expect(await review.getByTestId('restore-overwrite').count()).toBe(0);
    // And it can be undone: the user's version comes back.
    await review.getByTestId('undo-restore').first().click();
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: WAIT.server }).toBe(mine);
  });
});
