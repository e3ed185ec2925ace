import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract, type ContractClient } from '../support/contract-client';
import { addScenarioAgent, agentRow } from '../support/ui';

/**
 * Giving up on a session the agent is slow to create: Cancel on "Starting…", or closing its tab, withdraws
 * session/new ($/cancel_request) and leaves no tab and no session in History.
 */

const suite = appSuite('new-session-cancel');
let client: ContractClient;
beforeAll(async () => {
  client = await connectContract(suite.app);
});
afterAll(() => client?.close());

async function agentIdOf(name: string): Promise<string> {
  const { agents } = await client.call<{ agents: Array<{ id: string; name: string }> }>('agents.list', {});
  return agents.find((a) => a.name === name)!.id;
}

const agentLog = async (agentId: string) => (await client.call<{ text: string }>('agents.log', { agentId })).text;
const historyIds = async () => (await client.call<{ sessions: Array<{ id: string; agentId: string }> }>('history.list', {})).sessions;

/** Starts a session of the agent from its sidebar row; resolves once the tab says it is starting and the agent hangs. */
async function startHanging(page: Page, name: string, agentId: string) {
  await agentRow(page, name).getByTestId('agent-new-session').click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByTestId('new-session-folder').fill(suite.work);
  await dialog.getByTestId('new-session-start').click();
  const starting = page.getByTestId('session-starting');
  await starting.getByText(`Starting ${name}`).waitFor();
  await expect.poll(() => agentLog(agentId), { timeout: 30_000 }).toContain('hanging: session/new');
  return starting;
}

describe('giving up on a session being created', { timeout: 120_000 }, () => {
  it('Cancel on "Starting…" withdraws session/new and closes the tab', async () => {
    const { page } = await suite.open({ empty: true });
    await addScenarioAgent(page, 'Slow', 'SCENARIO_HANG_ON=session/new');
    const agentId = await agentIdOf('Slow');
    const starting = await startHanging(page, 'Slow', agentId);
    await starting.getByTestId('session-starting-cancel').click();
    await starting.waitFor({ state: 'detached' });
    await expect(page.locator('[role=tab]').count()).resolves.toBe(0);
    await expect.poll(() => agentLog(agentId), { timeout: 30_000 }).toContain('cancel_request: session/new');
    expect((await historyIds()).filter((s) => s.agentId === agentId)).toEqual([]);
  });

  it('closing the tab of a session being created withdraws it', async () => {
    const { page } = await suite.open({ empty: true });
    await addScenarioAgent(page, 'Slower', 'SCENARIO_HANG_ON=session/new');
    const agentId = await agentIdOf('Slower');
    const starting = await startHanging(page, 'Slower', agentId);
    await page.locator('[role=tab][aria-selected=true] .tab-close').click();
    await starting.waitFor({ state: 'detached' });
    await expect.poll(() => agentLog(agentId), { timeout: 30_000 }).toContain('cancel_request: session/new');
    expect((await historyIds()).filter((s) => s.agentId === agentId)).toEqual([]);
    const live = await client.call<{ sessions: Array<{ agentId: string }> }>('sessions.live', {});
    expect(live.sessions.filter((s) => s.agentId === agentId)).toEqual([]);
  });
});
