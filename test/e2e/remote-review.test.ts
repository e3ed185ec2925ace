import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { sshSuiteOptions, startE2eSshHost } from '../support/ssh-e2e';
import { activeSession, addScenarioAgent, agentRow, sendPrompt } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 27's review and revert on an SSH host, end to end in Chromium against a real OpenSSH server
 * (test/support/ssh-e2e.ts): the scenario agent runs on the host; a turn's write there shows in the session's
 * "Files changed" with its diff, and "Revert file" puts the host's file back; a shell's write there opens in
 * the turn's review, and "Rewind" takes it away. Each result is read on the host's disk, as the remote user's:
 * the snapshots, the diffs and the restores are the host helper's, none of it this machine's. A large host
 * folder's first snapshot shows its progress ("Snapshotting 10,000 files… 40 %"), counted on the host.
 */

const host = await startE2eSshHost('the review on an SSH host end-to-end test', { knownHosts: 'right' });
const suite = appSuite('remote-review', undefined, sshSuiteOptions(host));
const folder = host ? host.folder('e2e-review') : '';
const notes = join(folder, 'notes.txt');
if (host) host.write(notes, 'first line\nsecond line\n');

/** The host connected (through the contract: Settings → Hosts has its own test), and a session of a new scenario agent in `dir` there. */
async function hostSession(page: Page, agent: string, dir: string): Promise<Locator> {
  const client = await connectContract(suite.app);
  try {
    expect(await client.call('hosts.connect', { hostId: host!.hostId })).toMatchObject({ ok: true });
  } finally {
    client.close();
  }
  await addScenarioAgent(page, agent);
  await agentRow(page, agent).getByTestId('agent-new-session').click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByTestId('new-session-host').selectOption(host!.hostId);
  await dialog.getByTestId('new-session-folder').fill(dir);
  await dialog.getByTestId('new-session-start').click();
  await dialog.waitFor({ state: 'detached', timeout: WAIT.server });
  return activeSession(page);
}

describe.skipIf(host === null)('review and revert of a session on an SSH host, through the UI', { timeout: 240_000 }, () => {
  it("shows a host turn's diff, reverts the file on the host, and rewinds a shell's write there", async () => {
    const { page } = await suite.open({ empty: true });
    const tab = await hostSession(page, 'Host Reviewer', folder);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });

    // ── The agent changes a file on the host; "Files changed" shows the diff, "Revert file" undoes it there.
    await sendPrompt(tab, `write ${notes} first line\\nchanged on the host\\n`);
    await tab.getByTestId('turn-changes-open').filter({ hasText: '1 modified' }).waitFor({ timeout: WAIT.agent });
    expect(readFileSync(notes, 'utf8')).toBe('first line\nchanged on the host\n');
    await tab.getByTestId('files-button').filter({ hasText: 'Files changed (1)' }).click();
    const panel = tab.getByTestId('files-panel');
    const file = panel.getByTestId('change-file').filter({ hasText: 'notes.txt' });
    await file.waitFor({ timeout: WAIT.server });
    const name = file.locator('.change-file-name');
    if ((await name.getAttribute('aria-expanded')) !== 'true') await name.click();
    const diff = panel.locator('[data-testid=monaco-diff][data-ready=true]');
    await diff.locator('.view-lines', { hasText: 'changed on the host' }).first().waitFor({ timeout: WAIT.server });
    await diff.locator('.view-lines', { hasText: 'second line' }).first().waitFor({ timeout: WAIT.server });
    await panel.getByTestId('revert-file').click();
    await panel.getByTestId('restore-report').filter({ hasText: 'notes.txt' }).waitFor({ timeout: WAIT.agent });
    expect(readFileSync(notes, 'utf8')).toBe('first line\nsecond line\n');
    // Put back by the host's helper: the remote user's file, as it was.
    expect(statSync(notes).uid).toBe(host!.uid);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });

    // ── A shell on the host writes a file; the turn's review shows it, and "Rewind" removes it from the host.
    await sendPrompt(tab, `terminal {"command":"sh","args":["-c","printf 'from the host shell' > shell-made.txt"]}`);
    const shellMade = join(folder, 'shell-made.txt');
    const changes = tab.getByTestId('turn-changes-open').filter({ hasText: '1 added' });
    await changes.waitFor({ timeout: WAIT.agent });
    expect(readFileSync(shellMade, 'utf8')).toBe('from the host shell');
    expect(statSync(shellMade).uid).toBe(host!.uid);
    await changes.click();
    const review = page.locator('.tab-panel:not([hidden]) [data-testid=review-tab]');
    await review.getByTestId('change-file').filter({ hasText: 'shell-made.txt' }).click({ timeout: WAIT.server });
    await review.locator('[data-testid=monaco-diff][data-ready=true] .view-lines', { hasText: 'from the host shell' }).first().waitFor({ timeout: WAIT.server });
    await review.getByTestId('rewind-turn').click();
    await review.getByTestId('restore-report').filter({ hasText: 'shell-made.txt' }).waitFor({ timeout: WAIT.agent });
    expect(existsSync(shellMade)).toBe(false);
    // The earlier revert stays: the rewind only took this turn back.
    expect(readFileSync(notes, 'utf8')).toBe('first line\nsecond line\n');
    // Nothing of the host's folder, nor of its snapshots, was written on this machine.
    expect(existsSync(join(suite.work, 'shell-made.txt'))).toBe(false);
  });

  it('shows the first snapshot of a large host folder as "Snapshotting 10,000 files… P %", its progress streamed from the host', async () => {
    const big = host!.folder('e2e-big');
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(big, `dir${d}`));
      for (let f = 0; f < 250; f++) writeFileSync(join(big, `dir${d}`, `file${f}.txt`), `content ${d}/${f}\n`);
    }
    expect(spawnSync('chown', ['-R', `${host!.uid}:${host!.gid}`, big]).status).toBe(0);
    const { page } = await suite.open({ empty: true });
    // Every text the progress banner shows, however briefly, from before the session opens.
    await page.evaluate(() => {
      const w = window as unknown as { __seen: string[] };
      w.__seen = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid=snapshot-progress]')) {
          const text = el.textContent ?? '';
          if (w.__seen.at(-1) !== text) w.__seen.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await hostSession(page, 'Host Snapshotter', big);
    const seen = (): Promise<string[]> => page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
    // A percentage between the start and the end comes only from the host's notes of files recorded so far.
    await expect.poll(async () => (await seen()).some((t) => /Snapshotting 10,000 files… [1-9]\d? %/.test(t)), { timeout: 120_000 }).toBe(true);
  });
});
