import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { activeSession, addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Counts at the old cap (issue 25): 56–64 KB of `CSI 1000 L` froze the page for 22.8 s, and again after a
 * reload (the stored output replays), because xterm loops once per count whatever the screen. Every CSI
 * final that takes a count, at 1000, in megabytes of output, written to an agent's terminal and to a shell
 * tab: the page must keep drawing frames (a requestAnimationFrame loop in the page measures the longest gap
 * between two frames), live, and after a reload for the agent's terminal (whose output the app keeps).
 */

const suite = appSuite('term-amp');

const ESC = '\x1b';
const COUNTED = [...'@ABCDEFGILMPSTXZ`abde'.split(''), ' @', ' A', "'}", "'~"];
/** One of each counted final at 1000 (REP after a character), a scroll region fed with line feeds, and a reset. */
const UNIT = `${COUNTED.map((f) => `x${ESC}[1000${f}`).join('')}${ESC}[3;9r${'\n'.repeat(20)}${ESC}[r${ESC}[1000;1000H`;

function hostileFile(name: string, bytes: number, mark: string): string {
  const file = join(suite.work, name);
  writeFileSync(file, `${UNIT.repeat(Math.ceil(bytes / UNIT.length))}${ESC}[0m${ESC}[r${ESC}[2J${ESC}[H${mark}\r\n`);
  return file;
}

/** The longest gap between two animation frames since `reset` (installed before the app loads). */
const MONITOR = () => {
  const w = window as unknown as { __gap: { max: number; last: number } };
  w.__gap = { max: 0, last: 0 };
  const tick = (t: number) => {
    if (w.__gap.last) w.__gap.max = Math.max(w.__gap.max, t - w.__gap.last);
    w.__gap.last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
};
const resetGap = (page: Page) => page.evaluate(() => void ((window as unknown as { __gap: { max: number } }).__gap.max = 0));
const maxGap = (page: Page) => page.evaluate(() => (window as unknown as { __gap: { max: number } }).__gap.max);

describe('terminal output at the caps', () => {
  it("an agent's terminal: megabytes of every counted final at 1000 keep the page drawing, live and after a reload", async () => {
    const mark = 'AMP-AGENT-END';
    const file = hostileFile('agent-amp.txt', 2 * 1024 * 1024, mark);
    const { page, errors } = await suite.open({ empty: true, prepare: async (c) => void (await c.addInitScript(MONITOR)) });
    const row = await addScenarioAgent(page, 'Amplifier');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    await resetGap(page);
    const started = Date.now();
    await sendPrompt(tab, `terminal ${JSON.stringify({ command: 'cat', args: [file], outputByteLimit: 16 * 1024 * 1024, quiet: true })}`);
    const terminal = activeSession(page).getByTestId('agent-terminal');
    await terminal.locator('.xterm-rows', { hasText: mark }).waitFor({ timeout: 120_000 });
    const live = await maxGap(page);
    const shownLive = Date.now() - started;

    await page.reload();
    await page.getByTestId('workspace').waitFor();
    await resetGap(page);
    await activeSession(page).getByTestId('agent-terminal').locator('.xterm-rows', { hasText: mark }).waitFor({ timeout: 120_000 });
    const replay = await maxGap(page);
    console.log(`agent terminal, 2 MB at the caps: shown in ${(shownLive / 1000).toFixed(1)} s; longest frame gap live ${live.toFixed(0)} ms, on reload ${replay.toFixed(0)} ms`);
    expect(live).toBeLessThan(1_000);
    expect(replay).toBeLessThan(1_000);
    expect(errors).toEqual([]);
  }, 300_000);

  it('a shell tab: 10 MB of every counted final at 1000 keeps the page drawing (a shell tab starts a new shell on reload: nothing replays)', async () => {
    const mark = 'AMP-SHELL-END';
    const file = hostileFile('shell-amp.txt', 10 * 1024 * 1024, mark);
    const { page, errors } = await suite.open({ empty: true, prepare: async (c) => void (await c.addInitScript(MONITOR)) });
    await page.getByRole('button', { name: 'New tab' }).first().click();
    await page.getByTestId('launch-shell').click();
    const shell = page.locator('.tab-panel:not([hidden]) [data-testid=shell-tab]');
    await shell.locator('.xterm-rows').waitFor();
    await shell.locator('.xterm').click();
    await resetGap(page);
    // The marker is printed by cat: the command line names the file only.
    const started = Date.now();
    await page.keyboard.type(`cat ${file}\n`);
    await shell.locator('.xterm-rows', { hasText: mark }).waitFor({ timeout: 240_000 });
    const live = await maxGap(page);
    console.log(`shell tab, 10 MB at the caps: shown in ${((Date.now() - started) / 1000).toFixed(1)} s, longest frame gap ${live.toFixed(0)} ms`);
    expect(live).toBeLessThan(1_000);
    // The page is still at the user's service: the shell answers the next command.
    await page.keyboard.type('echo after-$((40+2))\n');
    await shell.locator('.xterm-rows', { hasText: 'after-42' }).waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
  }, 360_000);
});
