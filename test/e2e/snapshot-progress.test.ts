import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { addScenarioAgent, sendPrompt, startSessionFromSidebar } from '../support/ui';

/**
 * Before a turn's prompt goes out, Switchboard snapshots the folder; in a large folder that takes a while. The
 * thread says so ("Snapshotting … files…", Switchboard's work), not that the agent is working.
 */

const suite = appSuite('snapshot-progress');

describe('the snapshot before a turn', { timeout: 180_000 }, () => {
  it('shows "Snapshotting …" as Switchboard\'s work while the folder is recorded, then the agent\'s reply', async () => {
    const folder = tempDir('sb-big-folder-');
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(folder, `dir${d}`));
      for (let f = 0; f < 250; f++) writeFileSync(join(folder, `dir${d}`, `file${f}.txt`), `content ${d}/${f}\n`);
    }
    const { page } = await suite.open({ empty: true });
    const row = await addScenarioAgent(page, `Big ${Math.random().toString(36).slice(2, 7)}`);
    const tab = await startSessionFromSidebar(page, row, folder);
    // Every text the working row shows, however briefly.
    await page.evaluate(() => {
      const w = window as unknown as { __working: string[] };
      w.__working = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid=working]')) {
          const text = `${el.getAttribute('data-phase') ?? 'agent'}: ${el.textContent ?? ''}`;
          if (w.__working.at(-1) !== text) w.__working.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await sendPrompt(tab, 'hello');
    await tab.getByTestId('agent-message').filter({ hasText: 'Hello from the scenario agent.' }).waitFor({ timeout: 120_000 });
    const seen = await page.evaluate(() => (window as unknown as { __working: string[] }).__working);
    const snapshot = seen.filter((t) => t.startsWith('snapshot: '));
    expect(snapshot.length, seen.join('\n')).toBeGreaterThan(0);
    expect(snapshot[0]).toMatch(/^snapshot: \s*Snapshotting (the folder|[\d,]+ files)…/);
    expect(snapshot[0]).toContain('Switchboard records the folder before the prompt goes to the agent');
  });
});
