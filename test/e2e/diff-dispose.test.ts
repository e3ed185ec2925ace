import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Diffs closed while Monaco's diff worker is busy: a closed diff's request waits behind the worker's current
 * work, its editor and models go meanwhile, and the worker's late answer (for models it never got) must not
 * surface as a page error ("no diff result available").
 */

const suite = appSuite('diff-dispose');

describe('diffs closed while the diff worker is busy', () => {
  it('opens and closes small diffs quickly while the worker computes a large one, without a page error', async () => {
    const { page, errors } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, 'Diff churn agent');
    const tab = await startSessionFromSidebar(page, row, suite.work);
    // churn-0: 20,000 lines, every one changed (seconds of the worker's time: it stops at Monaco's 5 s limit);
    // churn-1…6: 200 lines.
    await sendPrompt(tab, 'diffs 7 200 20000');
    await tab.getByText('7 diffs sent').waitFor({ timeout: 30_000 });

    // In the page: every edit closed; churn-0 opened, and once its editor is built (its diff is in the worker),
    // rounds of opening the small ones and closing them as soon as one has its editor (its request is queued
    // behind the large diff's), as long as the large diff is not shown.
    const { rounds, whileBusy } = await page.evaluate(async () => {
      const tools = () => [...document.querySelectorAll<HTMLElement>('.tab-panel:not([hidden]) [data-testid=tool-call][data-tool-call-id^=churn-]')];
      const heads = (filter: (id: string) => boolean) =>
        tools()
          .filter((t) => filter(t.dataset.toolCallId!))
          .map((t) => t.querySelector<HTMLButtonElement>('.tool-head')!);
      const setOpen = (hs: HTMLButtonElement[], open: boolean) => {
        for (const h of hs) if ((h.getAttribute('aria-expanded') === 'true') !== open) h.click();
      };
      const diffOf = (id: string) => tools().find((t) => t.dataset.toolCallId === id)?.querySelector('[data-testid=monaco-diff]') ?? null;
      const until = (what: string, check: () => boolean) =>
        new Promise<void>((resolve, reject) => {
          if (check()) return resolve();
          const timer = setTimeout(() => reject(new Error(`${what}: not within 30 s`)), 30_000);
          const observer = new MutationObserver(() => {
            if (!check()) return;
            observer.disconnect();
            clearTimeout(timer);
            resolve();
          });
          observer.observe(document.body, { subtree: true, attributes: true, childList: true });
        });
      const small = () => heads((n) => n !== 'churn-0');
      const largeShown = () => diffOf('churn-0')?.querySelector('.line-insert, .line-delete') != null;
      setOpen(heads(() => true), false);
      await new Promise((r) => requestAnimationFrame(r));
      setOpen(heads((n) => n === 'churn-0'), true);
      await until('the large diff built', () => diffOf('churn-0')?.getAttribute('data-ready') === 'true');
      let rounds = 0;
      let whileBusy = 0;
      while (rounds < 8 && !largeShown()) {
        setOpen(small(), true);
        await until('a small diff built', () => document.querySelectorAll('[data-testid=monaco-diff][data-ready=true]').length > 1);
        const busy = !largeShown();
        setOpen(small(), false);
        rounds++;
        if (busy) whileBusy++;
        await new Promise((r) => requestAnimationFrame(r));
      }
      return { rounds, whileBusy };
    });
    expect(whileBusy, `small diffs closed while the large one was computed (of ${rounds} rounds)`).toBeGreaterThan(0);

    // The worker answers in order: once the large diff and then a small one opened after it show their
    // changes, every request of the closed ones has had its answer.
    const tool = (id: string) => tab.locator(`[data-testid=tool-call][data-tool-call-id=${id}]`);
    await tool('churn-0').locator('[data-testid=monaco-diff] .line-insert').first().waitFor({ timeout: 60_000 });
    await tool('churn-0').locator('.tool-head').click();
    await tool('churn-6').locator('.tool-head').click();
    await tool('churn-6').locator('[data-testid=monaco-diff][data-ready=true] .line-insert').first().waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
  });
});
