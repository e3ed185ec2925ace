import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * When a session opens, Switchboard takes the folder's first snapshot in the background; in a large folder
 * that takes a while. The session says so ("Snapshotting 10,000 files… 40 %", Switchboard's work), and a prompt
 * sent meanwhile goes to the agent without waiting, the working row saying the snapshot is still running.
 */

const suite = appSuite('snapshot-progress');

describe('the first snapshot of a folder', { timeout: 180_000 }, () => {
  it('shows "Snapshotting N files… P %" when the session opens, and a prompt sent meanwhile reaches the agent', async () => {
    const folder = tempDir('sb-big-folder-');
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(folder, `dir${d}`));
      for (let f = 0; f < 250; f++) writeFileSync(join(folder, `dir${d}`, `file${f}.txt`), `content ${d}/${f}\n`);
    }
    const { page } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, `Big ${Math.random().toString(36).slice(2, 7)}`);
    // Every text the progress banner and the working row show, however briefly, from before the session opens.
    await page.evaluate(() => {
      const w = window as unknown as { __seen: string[] };
      w.__seen = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid=snapshot-progress], [data-testid=working]')) {
          const kind = el.getAttribute('data-testid') === 'snapshot-progress' ? 'banner' : (el.getAttribute('data-phase') ?? 'agent');
          const text = `${kind}: ${el.textContent ?? ''}`;
          if (w.__seen.at(-1) !== text) w.__seen.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const tab = await startSessionFromSidebar(page, row, folder);
    await sendPrompt(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor({ timeout: 120_000 });
    const seen = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
    const banner = seen.filter((t) => t.startsWith('banner: '));
    expect(banner.length, seen.join('\n')).toBeGreaterThan(0);
    expect(banner[0]).toMatch(/^banner: \s*Snapshotting (the folder…|10,000 files…( \d+ %)?)/);
    expect(banner.join('\n')).toContain('Switchboard records the folder');
    // A turn that started before the snapshot was done said so beside "Working…".
    for (const t of seen.filter((x) => x.includes('still taking the first snapshot'))) expect(t).toMatch(/^agent: .*Working…/);
  });
});
