import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { WAIT } from '../support/waits';

/**
 * Issue 36: a user's Gemini CLI sessions are imported, and their agent is a wrapper script they added under
 * a name of their own (nothing in it names Gemini). In the transcript they choose it (Continue with…), and
 * the session comes back live through it.
 */

const FIXTURE = join(__dirname, '../fixtures/agent-histories/gemini-0.61.0');
const FIXTURE_CWD = '/tmp/sb-fixture-gemini-YfH6uP';
const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-continue-with-')));
const home = join(root, 'home');

const suite = appSuite('continue-with', undefined, {
  // Gemini CLI's store as the fixture has it, its session run in the suite's folder.
  seed: (_dataDir, work) => {
    cpSync(FIXTURE, home, { recursive: true });
    for (const f of readdirSync(home, { recursive: true }) as string[]) {
      const path = join(home, f);
      if (f.endsWith('.json') || f.endsWith('.jsonl')) writeFileSync(path, readFileSync(path, 'utf8').replaceAll(FIXTURE_CWD, work));
    }
  },
  env: () => ({ HOME: home }),
});
suite.afterStop(() => rmSync(root, { recursive: true, force: true }));

describe('continuing an imported session with an agent the user chooses', { timeout: 180_000 }, () => {
  it('lists the set-up agents, binds the chosen one, and reopens the session through it', async () => {
    const { command, args } = scenarioAgentCommand();
    const script = join(root, 'bin', 'my-assistant');
    mkdirSync(join(root, 'bin'), { recursive: true });
    writeFileSync(script, `#!/bin/sh\nexec ${[command, ...args].map((a) => `'${a}'`).join(' ')} "$@"\n`);
    chmodSync(script, 0o755);
    const contract = await connectContract(suite.app);
    await contract.call('agents.addCustom', { name: 'My assistant', command: script, args: [], env: { SCENARIO_CAPS: 'loadSession' } });
    contract.close();

    const { page } = await suite.open({ empty: true });
    await page.getByTestId('history-import-open').click();
    const history = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    const gemini = history.locator('[data-testid=history-import-source][data-source=gemini-cli]');
    // Gemini's file holding its preamble only is no session.
    await expect.poll(() => gemini.getByTestId('history-import-sessions').innerText(), { timeout: WAIT.page }).toBe('1');
    await history.getByTestId('history-import-start').click();
    await expect.poll(() => history.getByTestId('history-import-result').innerText(), { timeout: 30_000 }).toMatch(/^1 session imported/);

    await history.getByTestId('history-open').first().click();
    const transcript = page.locator('.tab-panel:not([hidden]) [data-testid=transcript-tab]');
    await transcript.getByTestId('user-message').filter({ hasText: 'Please write the notes and list the folder' }).waitFor({ timeout: WAIT.page });
    // No agent is known to be Gemini's: none is preselected, and the session cannot come back yet.
    await transcript.locator('[data-testid=transcript-reopen-plan][data-mode=none]').waitFor({ timeout: 60_000 });
    const choice = transcript.getByTestId('transcript-continue-agent');
    expect(await choice.inputValue()).toBe('');
    await choice.selectOption({ label: 'My assistant' });
    await transcript.locator('[data-testid=transcript-reopen-plan][data-mode=load]').waitFor({ timeout: 60_000 });
    await transcript.getByTestId('transcript-restore').click();

    const live = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    await live.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    await expect.poll(() => live.getByTestId('user-message').filter({ hasText: 'Please write the notes and list the folder' }).count(), { timeout: WAIT.page }).toBe(1);
  });
});
