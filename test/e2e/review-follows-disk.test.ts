import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract, type ContractClient } from '../support/contract-client';
import { tempDir } from '../support/app-server';
import { addScenarioAgent, layoutSaved, sendPrompt, tabButtonOf, startSessionFromSidebar } from '../support/ui';

/**
 * Review views follow the disk: the session's "Files changed" says what the folder holds now (a revert, a
 * hand edit) and reverts from there; old turns keep their changes after a reopen; a reverted hunk is not
 * offered again, and a turn's changes open in one tab per turn, named for the turn.
 */

const suite = appSuite('review-disk');
let client: ContractClient;
beforeAll(async () => {
  client = await connectContract(suite.app);
});
afterAll(() => client?.close());

const uniq = () => Math.random().toString(36).slice(2, 7);

async function sessionIn(page: Page, folder: string, env = ''): Promise<Locator> {
  const row = await addScenarioAgent(page, `Reviewer ${uniq()}`, env);
  return startSessionFromSidebar(page, row, folder);
}

const reviewTabs = (page: Page) => page.locator('[role=tab]').filter({ hasText: /^Changes/ });

describe('review views follow the disk', { timeout: 180_000 }, () => {
  it('"Files changed" shows the folder now: a hand edit is marked "edited since the agent\'s turn" and "Revert file" works', async () => {
    const folder = tempDir('sb-review-now-');
    const { page } = await suite.open({ empty: true });
    const tab = await sessionIn(page, folder);
    await sendPrompt(tab, 'write-here notes.txt one\\ntwo\\nthree\\n');
    await tab.getByTestId('turn-changes-open').waitFor({ timeout: 30_000 });
    await tab.getByTestId('files-button').click();
    const panel = tab.getByTestId('files-panel');
    await panel.getByTestId('change-file').filter({ hasText: 'notes.txt' }).waitFor();

    // The user edits the file by hand (in another program: the page is not told, the folder's watch is).
    writeFileSync(join(folder, 'notes.txt'), 'one\ntwo (by hand)\nthree\n');
    const edited = panel.getByTestId('change-file').filter({ hasText: 'notes.txt' }).getByTestId('edited-since');
    await edited.waitFor({ timeout: 30_000 });
    expect(await edited.innerText()).toContain("edited since the agent's turn");
    // Its diff is the folder now. Reverting it would take the file back to before the session (it did not exist),
    // losing the hand edit: asked first, with the line, then done.
    const name = panel.getByTestId('change-file').filter({ hasText: 'notes.txt' }).locator('.change-file-name');
    if ((await name.getAttribute('aria-expanded')) !== 'true') await name.click();
    await panel.getByTestId('revert-file').click();
    const refused = panel.getByTestId('restore-refused').locator('li[data-path="notes.txt"]');
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.getByTestId('restore-lost').innerText()).toContain('two (by hand)');
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('one\ntwo (by hand)\nthree\n');
    await refused.getByTestId('restore-overwrite').click();
    await panel.getByTestId('restore-report').filter({ hasText: 'restored' }).waitFor({ timeout: 30_000 });
    expect(() => readFileSync(join(folder, 'notes.txt'), 'utf8')).toThrow();
    await panel.getByText('No file in the session’s folders has changed since it started.').waitFor({ timeout: 30_000 });
  });

  for (const caps of ['resume', 'loadSession']) {
    it(`old turns keep their "Changes" after "Reopen" (${caps}), reviewable and undoable`, async () => {
      const folder = tempDir('sb-review-reopen-');
      const store = join(tempDir('sb-review-store-'), 'agent.json');
      const { page } = await suite.open({ empty: true });
      const tab = await sessionIn(page, folder, `SCENARIO_CAPS=${caps},close\nSCENARIO_STORE=${store}`);
      const sessionId = (await tab.getAttribute('data-session-id'))!;
      await sendPrompt(tab, 'write-here kept.txt kept content');
      await tab.getByTestId('turn-changes-open').waitFor({ timeout: 30_000 });

      await client.call('sessions.close', { sessionId });
      const transcript = page.locator(`[data-testid=transcript-tab][data-session-id="${sessionId}"]`);
      await transcript.getByTestId('transcript-restore').click({ timeout: 30_000 });
      const live = page.locator(`[data-testid=session-tab][data-session-id="${sessionId}"]`);
      await live.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
      const changes = live.getByTestId('turn-changes-open');
      await changes.waitFor({ timeout: 30_000 });
      await changes.click();
      const review = page.locator('.tab-panel:not([hidden]) [data-testid=review-tab]');
      await review.getByTestId('change-file').filter({ hasText: 'kept.txt' }).waitFor({ timeout: 30_000 });
      await review.getByTestId('revert-all').click();
      await review.getByTestId('undo-restore').waitFor({ timeout: 30_000 });
      expect(() => readFileSync(join(folder, 'kept.txt'), 'utf8')).toThrow();
    });
  }

  it('a reverted hunk is no longer offered; "Nothing to do" never hides Undo; one tab per turn, named for the turn', async () => {
    const folder = tempDir('sb-review-hunk-');
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(folder, 'code.txt'), `${lines.join('\n')}\n`);
    const { page } = await suite.open({ empty: true });
    const tab = await sessionIn(page, folder);
    const changed = lines.map((l, i) => (i === 2 || i === 25 ? `${l} changed` : l));
    await sendPrompt(tab, `write-here code.txt ${changed.join('\\n')}\\n`);
    const open = tab.getByTestId('turn-changes-open');
    await open.waitFor({ timeout: 30_000 });

    // Clicking the turn's changes again, also after a reload (the layout comes back): one tab, named for the turn.
    await open.click();
    await reviewTabs(page).first().waitFor();
    const sessionTabHandle = await tabButtonOf(page, tab);
    const sessionTitle = (await sessionTabHandle.innerText()).trim();
    await sessionTabHandle.click();
    await open.click();
    // The layout is saved a moment after it changes: reload once it holds these tabs.
    await layoutSaved(page, suite.app, [await page.locator('[role=tab]').count()]);
    await page.reload();
    await page.getByTestId('workspace').waitFor({ timeout: 60_000 });
    // Tabs get new ids when the layout is restored, and a restored tab is drawn only once it is shown: its button first.
    await page.locator('[role=tab]').filter({ hasText: sessionTitle }).first().click({ timeout: 60_000 });
    await tab.waitFor({ state: 'attached', timeout: 60_000 });
    await tab.getByTestId('turn-changes-open').click({ timeout: 30_000 });
    await expect.poll(() => reviewTabs(page).count(), { timeout: 10_000 }).toBe(1);
    expect(await reviewTabs(page).innerText()).not.toBe('Changes of a turn');
    expect(await reviewTabs(page).innerText()).toMatch(/^Changes · \d\d:\d\d:\d\d$/);

    const review = page.locator('.tab-panel:not([hidden]) [data-testid=review-tab]');
    await review.getByTestId('change-file').filter({ hasText: 'code.txt' }).waitFor({ timeout: 30_000 });
    const hunks = review.getByTestId('revert-hunk');
    await expect.poll(() => hunks.count(), { timeout: 30_000 }).toBe(2);
    await hunks.first().click();
    await review.getByTestId('undo-restore').waitFor({ timeout: 30_000 });
    expect(readFileSync(join(folder, 'code.txt'), 'utf8')).toContain('line 3\n');
    // The reverted hunk says so, and only the other one is offered.
    await review.getByTestId('hunk-reverted').waitFor({ timeout: 10_000 });
    await expect.poll(() => hunks.count(), { timeout: 10_000 }).toBe(1);
    // Reverting the whole file now does only what is left.
    await review.getByTestId('revert-file').click();
    await expect.poll(() => readFileSync(join(folder, 'code.txt'), 'utf8'), { timeout: 30_000 }).toBe(`${lines.join('\n')}\n`);
    await review.getByTestId('undo-restore').waitFor({ timeout: 30_000 });
    // Nothing left to revert: said, and the Undo stays.
    await review.getByTestId('revert-all').click();
    await review.getByText('Nothing to do').waitFor({ timeout: 30_000 });
    expect(await review.getByTestId('undo-restore').count()).toBeGreaterThan(0);
  });
});
