import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { WAIT } from '../support/waits';

const suite = appSuite('restored-idle');

/** The server's child processes working in `folder` (a shell a tab started there). */
function childrenIn(pid: number, folder: string): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((p) => {
      try {
        return p > 0 && readlinkSync(`/proc/${p}/cwd`) === folder;
      } catch {
        return false;
      }
    });
}

describe.runIf(process.platform === 'linux')('a tab the saved layout brings back', { timeout: 120_000 }, () => {
  it('costs nothing until it is first shown: a restored shell tab starts its shell only when opened', async () => {
    // The layout a previous run saved: Settings in front, a shell tab behind it.
    const client = await connectContract(suite.app);
    await client.call('settings.set', {
      key: 'workspace.layout',
      value: { tree: { pane: 0 }, focusedPane: 0, panes: [{ active: 0, tabs: [{ kind: 'settings', title: 'Settings', props: {} }, { kind: 'shell', title: 'Shell', props: { cwd: suite.work } }] }] },
    });
    client.close();

    const { page } = await suite.open();
    await page.locator('.tab-panel:not([hidden]) [data-testid=settings-tab]').waitFor({ timeout: WAIT.page });
    const behind = page.locator('[role=tab]').filter({ hasText: 'Shell' });
    await behind.waitFor();
    // Its view is not mounted (its panel is empty), and no shell runs in its folder.
    expect(await page.locator('.tab-panel[hidden]').count()).toBe(1);
    expect(await page.locator('.tab-panel[hidden] > *').count()).toBe(0);
    expect(childrenIn(suite.app.proc.pid!, suite.work)).toEqual([]);

    await behind.click();
    await page.locator('.tab-panel:not([hidden])[data-mounted=true]').waitFor();
    await expect.poll(() => childrenIn(suite.app.proc.pid!, suite.work).length, { timeout: WAIT.server }).toBe(1);
  });
});
