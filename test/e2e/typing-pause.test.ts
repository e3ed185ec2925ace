import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { addScenarioAgent, startSessionFromSidebar } from '../support/ui';

/**
 * Issue 16, typing while a thread fills: a diff or an agent's terminal that comes into view is built (Monaco:
 * 30–50 ms of the page's main thread, ~100 ms more the first time; xterm: ~30 ms) only once the user pauses,
 * so that no keystroke waits behind it; when they pause, it is built.
 */

const suite = appSuite('typing-pause');
/** The pause the app waits for (TYPING_PAUSE_MS). */
const PAUSE_MS = 250;

interface Build {
  kind: 'diff' | 'terminal';
  /** ms since the last keydown when the editor appeared. */
  sinceKey: number;
}

describe('typing while diffs and terminals arrive', () => {
  it('builds their editors in a pause of the typing, not between two keys', async () => {
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Typing pause agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    await page.evaluate(() => {
      const w = window as unknown as { __builds: Build[]; __lastKey: number };
      w.__builds = [];
      w.__lastKey = Number.NEGATIVE_INFINITY;
      window.addEventListener('keydown', () => (w.__lastKey = performance.now()), true);
      const seen = new WeakSet<Element>();
      new MutationObserver(() => {
        for (const [kind, selector] of [
          ['diff', '[data-testid=monaco-diff] .monaco-editor'],
          ['terminal', '[data-testid=meta-terminal] .xterm'],
        ] as const) {
          for (const el of document.querySelectorAll(selector)) {
            const host = el.closest('[data-testid]')!;
            if (seen.has(host)) continue;
            seen.add(host);
            w.__builds.push({ kind, sinceKey: performance.now() - w.__lastKey });
          }
        }
      }).observe(document.body, { childList: true, subtree: true });
    });
    const input = tab.getByTestId('prompt-input');
    await input.click();

    const client = await connectContract(suite.app);
    try {
      // Typing, a key every ~40 ms; the agent's turn (two edits with diffs, a command with its output) lands
      // meanwhile, and the typing goes on for a while after its rows are shown.
      let typing = true;
      const typed = (async () => {
        while (typing) {
          await page.keyboard.press('a');
          await new Promise((r) => setTimeout(r, 40));
        }
      })();
      await new Promise((r) => setTimeout(r, 300));
      await client.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: 'long-thread 10 pause' }] });
      await tab.getByTestId('monaco-diff').first().waitFor();
      await tab.getByTestId('meta-terminal').first().waitFor();
      await new Promise((r) => setTimeout(r, 1000));
      typing = false;
      await typed;
      expect((await input.inputValue()).length).toBeGreaterThan(5);

      // The pause: both are built now.
      await tab.locator('[data-testid=monaco-diff][data-ready=true]').first().waitFor();
      await tab.locator('[data-testid=meta-terminal] .xterm').first().waitFor();
      const builds = (await page.evaluate('window.__builds')) as Build[];
      expect(builds.map((b) => b.kind)).toEqual(expect.arrayContaining(['diff', 'terminal']));
      for (const b of builds) expect(b.sinceKey, `${b.kind} built ${b.sinceKey.toFixed(0)} ms after a key`).toBeGreaterThanOrEqual(PAUSE_MS);
      expect(errors).toEqual([]);
    } finally {
      client.close();
    }
  });
});
