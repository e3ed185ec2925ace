import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { AcpScript, seedHistory } from '../support/history-seed';

/**
 * Continuing a past session in a new one goes through the new session's own tab: it starts there (with
 * Cancel while the agent has not answered), and the summary is its first message once it is created.
 */

const suite = appSuite('continue', undefined, {
  seed(dataDir, work) {
    const { command, args } = scenarioAgentCommand();
    const old = new AcpScript('acp-old', Date.now() - 3_600_000).start(work);
    old.turn('Write the release notes for version 3', 'Wrote them in NOTES.md.');
    seedHistory(dataDir, {
      // An agent that never answers session/new until the client withdraws it.
      agents: [{ id: 'slow', name: 'Slow Agent', command, args, env: { SCENARIO_HANG_ON: 'session/new' } }],
      sessions: [{ id: 'old', agentId: 'slow', cwd: work, createdAt: Date.now() - 3_600_000, messages: old.messages }],
    });
  },
});

describe('continue a past session', () => {
  it('starts the new session in its own tab, where Cancel withdraws it while the agent has not answered', async () => {
    const { page, errors } = await suite.open();
    const client = await connectContract(suite.app);
    try {
      await page.locator('[data-testid=history-row][data-session-id=old] [data-testid=history-open]').click();
      const transcript = page.locator('.tab-panel:not([hidden]) [data-testid=transcript-tab]');
      await transcript.getByTestId('transcript-continue-new').click();
      await transcript.getByTestId('continue-summary').waitFor();
      await transcript.getByTestId('continue-start').click();

      // The new session's tab: starting, with Cancel.
      const starting = page.locator('.tab-panel:not([hidden]) [data-testid=session-starting]');
      await starting.waitFor();
      await expect.poll(async () => (await client.call<{ text: string }>('agents.log', { agentId: 'slow' })).text, { timeout: 30_000 }).toContain('hanging: session/new');
      await starting.getByTestId('session-starting-cancel').click();
      await starting.waitFor({ state: 'detached' });
      // Withdrawn at the agent, and nothing of it kept.
      await expect.poll(async () => (await client.call<{ text: string }>('agents.log', { agentId: 'slow' })).text, { timeout: 30_000 }).toContain('cancel_request: session/new');
      expect((await client.call<{ sessions: Array<{ id: string }> }>('sessions.live', {})).sessions).toEqual([]);
      expect((await client.call<{ sessions: Array<{ id: string }> }>('history.list', {})).sessions.map((s) => s.id)).toEqual(['old']);
      // The transcript is still there, its summary not sent anywhere.
      await expect(page.locator('[role=tab]').count()).resolves.toBe(1);
      expect(errors).toEqual([]);
    } finally {
      client.close();
    }
  });
});
