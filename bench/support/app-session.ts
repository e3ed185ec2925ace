// The built app in browser mode with scenario agents: agents are added over the contract (before the page
// loads, so its agent list has them), sessions are started through the page's launcher as a user does.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { scenarioAgentCommand } from '../../test/fixtures/scenario-agent/launch';
import { tempDir } from '../../test/support/app-server';
import { connectContract, type ContractClient } from '../../test/support/contract-client';
import type { AppServer } from '../../test/support/app-server';

/** A folder to start sessions in. */
export function benchWorkDir(): string {
  const work = realpathSync(tempDir('sb-bench-work-'));
  mkdirSync(join(work, 'src'), { recursive: true });
  writeFileSync(join(work, 'README.md'), '# Bench project\n');
  return work;
}

/** Adds `count` custom agents running the scenario agent, named `${prefix} 1…count`. */
export async function addScenarioAgents(client: ContractClient, count: number, prefix = 'Bench'): Promise<Array<{ id: string; name: string }>> {
  const { command, args } = scenarioAgentCommand();
  const out: Array<{ id: string; name: string }> = [];
  for (let i = 1; i <= count; i++) {
    const name = `${prefix} ${i}`;
    const a = await client.call<{ id: string }>('agents.addCustom', { name, command, args, env: {}, cwd: null });
    out.push({ id: a.id, name });
  }
  return out;
}

/** Waits for the workspace and closes any restored tabs. */
export async function readyWorkspace(page: Page): Promise<void> {
  page.setDefaultTimeout(60_000);
  await page.getByTestId('workspace').waitFor();
  const close = page.locator('[role=tab] .tab-close');
  while ((await close.count()) > 0) await close.first().click();
}

/** Starts a session of `agentName` in a new tab of the focused pane; resolves with its id once idle. */
export async function startSessionInPage(page: Page, agentName: string, work: string): Promise<string> {
  await page.locator('.pane.focused .tab-new').click();
  const panel = page.locator('.tab-panel:not([hidden])').getByTestId('launcher-new-session');
  await panel.waitFor();
  await panel.getByTestId('new-session-agent').selectOption({ label: agentName });
  await panel.getByTestId('new-session-folder').fill(work);
  await panel.getByTestId('new-session-start').click();
  const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
  await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 120_000 });
  const id = await tab.getAttribute('data-session-id');
  if (!id) throw new Error('session tab without data-session-id');
  return id;
}

/** Sends a prompt over the contract (the tab shows it as the renderer's own prompt would be). */
export async function prompt(client: ContractClient, sessionId: string, text: string): Promise<string> {
  const r = await client.call<{ promptId: string }>('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return r.promptId;
}

/** Resolves when the session has been busy and is idle again (call before sending the prompt). */
export function whenIdle(client: ContractClient, sessionId: string, timeoutMs = 300_000): Promise<void> {
  let busy = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`session ${sessionId} not idle after ${timeoutMs} ms`));
    }, timeoutMs);
    const off = client.on((name, payload) => {
      const p = payload as { id?: string; status?: string };
      if (name !== 'session.state' || p.id !== sessionId) return;
      if (p.status !== 'idle') busy = true;
      else if (busy) {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}

/** Resolves when none of `sessionIds` is busy (asked over short-lived connections: one left open during a run would double the server's sending). */
export async function allIdle(app: AppServer, sessionIds: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await connectContract(app);
    const { sessions } = await c.call<{ sessions: Array<{ id: string; status: string }> }>('sessions.live', {});
    c.close();
    const busy = sessions.filter((s) => sessionIds.includes(s.id) && s.status !== 'idle');
    if (busy.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${busy.length} sessions still busy`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Shows the tab of `sessionId` in the focused pane, trying the tab at `hint` (its position) first. */
export async function activateTab(page: Page, sessionId: string, hint = 0): Promise<void> {
  const shown = () => page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]').getAttribute('data-session-id');
  const tabs = page.locator('.pane.focused [role=tab]');
  const count = await tabs.count();
  for (let k = 0; k < count; k++) {
    await tabs.nth((hint + k) % count).click();
    if ((await shown()) === sessionId) return;
  }
  throw new Error(`no tab for ${sessionId}`);
}
