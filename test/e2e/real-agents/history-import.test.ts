import { appendFileSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { appSuite } from '../../support/app-suite';
import { connectContract } from '../../support/contract-client';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index.js';
import { agentLaunch, createAgentHome, requireOrSkipAgent, spawnAgentProcess, type AgentHome } from '../../support/real-agents/index.js';
import { MinimalClient, routingClientApp } from './minimal-client.js';

/**
 * A user who ran Claude Code in a terminal before Switchboard: its session file (written by the real agent,
 * against the fake LLM, under its own HOME) is imported through History → Import, found by a word of a
 * command's output and by the name of a file it wrote, and continued in Claude Code through ACP
 * (session/resume with the agent's own session id): the agent answers with the old conversation in its context. A line the CLI
 * appends later shows up while "Keep importing" is on.
 */

const available = requireOrSkipAgent('claude-code');

let llm: FakeLlm;
/** The HOME of Claude Code's CLI runs, and of the app (where History → Import looks for the agents' stores). */
let home: AgentHome | undefined;
const agentHome = (): string => (home ??= createAgentHome('claude-code')).home;
let project: string;
let acpSessionId = '';

/** One session run by Claude Code itself, as a CLI user would have: a command and a file write. */
async function runClaudeOnce(): Promise<void> {
  const agent = spawnAgentProcess(agentLaunch('claude-code', { llmUrl: llm.url, home: agentHome() }), { cwd: project });
  const client = new MinimalClient({ roots: [project] });
  const connection = routingClientApp(() => client).connect(agent.stream);
  try {
    await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } });
    acpSessionId = (await connection.agent.request('session/new', { cwd: project, mcpServers: [] })).sessionId;
    llm.when('check the ostrich deploy', [
      { kind: 'shell', command: 'echo deploy-status-pelican-green' },
      { kind: 'write', path: join(project, 'rollout-plan.md'), content: 'Stage one: the canary\n' },
    ]);
    await connection.agent.request('session/prompt', { sessionId: acpSessionId, prompt: [{ type: 'text', text: 'Please check the ostrich deploy and write the rollout plan' }] });
    // Claude Code writes its session file after the turn has ended, a few records at a time: stopped before
    // that, its file ends at the first tool call (and the import has no file name to find).
    const dir = join(agentHome(), '.claude/projects');
    const written = (): boolean =>
      (readdirSync(dir, { recursive: true }) as string[]).some((f) => f.endsWith(`${acpSessionId}.jsonl`) && readFileSync(join(dir, f), 'utf8').includes('rollout-plan.md'));
    for (const until = Date.now() + 30_000; !written(); ) {
      if (Date.now() > until) throw new Error('Claude Code did not write its session file within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    client.dispose();
    connection.close();
    await agent.stop();
  }
}

const suite = appSuite('history-import', undefined, { env: () => ({ HOME: agentHome() }) });

beforeAll(async () => {
  if (!available) return;
  llm = await startFakeLlm();
  project = realpathSync(mkdtempSync(join(tmpdir(), 'sb-import-project-')));
  await runClaudeOnce();
}, 180_000);

// The app runs with the agent's HOME: it is removed once the app has stopped.
suite.afterStop(async () => {
  await llm?.close();
  home?.dispose();
  if (project) rmSync(project, { recursive: true, force: true });
});

const visible = (page: Page, testId: string): Locator => page.locator(`.tab-panel:not([hidden]) [data-testid=${testId}]`);

async function searchFor(page: Page, query: string): Promise<Locator> {
  const input = page.getByTestId('history-search-input');
  if (!(await input.isVisible())) {
    await page.keyboard.press('Control+k');
    await input.waitFor();
  }
  // A new search each time (the same text again would not search again).
  await input.fill('');
  await input.fill(query);
  await page.locator(`[data-testid=history-hits][data-query="${query}"], [data-testid=history-search-empty][data-query="${query}"]`).first().waitFor({ timeout: 15_000 });
  return page.getByTestId('history-hit');
}

describe.skipIf(!available)('History → Import of Claude Code’s own sessions', { timeout: 240_000 }, () => {
  it('imports the session, finds it by a word of a command output, and continues it in Claude Code', async () => {
    // The agent as the user added it (its command names claude-code-acp, so imported sessions are bound to it).
    const launch = agentLaunch('claude-code', { llmUrl: llm.url, home: agentHome() });
    const contract = await connectContract(suite.app);
    await contract.call('agents.addCustom', { name: 'Claude Code', command: launch.command, args: launch.args, env: launch.env });
    contract.close();

    // A new user: History is empty and offers the import.
    const { page } = await suite.open({ empty: true });
    await page.getByTestId('history-import-open').click();
    const history = visible(page, 'history-tab');
    const claude = history.locator('[data-testid=history-import-source][data-source=claude-code]');
    await expect.poll(() => claude.getByTestId('history-import-sessions').innerText(), { timeout: 15_000 }).toBe('1');
    await history.getByTestId('history-import-start').click();
    await expect.poll(() => history.getByTestId('history-import-result').innerText(), { timeout: 30_000 }).toMatch(/^1 session imported/);
    await expect.poll(() => claude.getByTestId('history-import-imported').innerText(), { timeout: 15_000 }).toBe('1');

    // A word of the shell command's output, and the name of the file the agent wrote.
    await expect.poll(async () => (await searchFor(page, 'pelican')).count(), { timeout: 15_000, interval: 500 }).toBeGreaterThan(0);
    await expect.poll(async () => (await searchFor(page, 'rollout-plan.md')).count(), { timeout: 15_000, interval: 500 }).toBeGreaterThan(0);
    await page.getByTestId('history-hit').first().click();
    const transcript = visible(page, 'transcript-tab');
    await transcript.getByTestId('user-message').filter({ hasText: 'check the ostrich deploy' }).waitFor({ timeout: 15_000 });

    // Continue in Claude Code: session/resume with Claude Code's own session id.
    await transcript.locator('[data-testid=transcript-reopen-plan][data-mode=resume]').waitFor({ timeout: 60_000 });
    await transcript.getByTestId('transcript-restore').click();
    const live = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    await live.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    await expect.poll(() => live.getByTestId('user-message').filter({ hasText: 'check the ostrich deploy' }).count(), { timeout: 10_000 }).toBe(1);
    llm.when('what did the deploy check print', [{ kind: 'text', text: 'It printed the pelican status.' }]);
    const input = live.getByTestId('prompt-input');
    await input.fill('what did the deploy check print');
    await input.press('Enter');
    await live.getByTestId('agent-message').filter({ hasText: 'It printed the pelican status.' }).waitFor({ timeout: 60_000 });
    // The new prompt went to Claude Code in the resumed session (session/resume with its own id succeeded).
    expect(llm.turnRequests().some((r) => r.promptText?.includes('what did the deploy check print'))).toBe(true);
  });

  it('with Keep importing on, a session the CLI writes later becomes searchable as it grows', async () => {
    const { page } = await suite.open({ empty: true });
    await page.getByTestId('history-open-tab').click();
    const history = visible(page, 'history-tab');
    await history.getByTestId('history-import-toggle').click();
    const keep = history.locator('[data-testid=history-import-source][data-source=claude-code]').getByTestId('history-import-keep');
    await keep.check();
    await expect.poll(() => keep.isChecked(), { timeout: 5_000 }).toBe(true);
    // The session continued above is Switchboard's now; the CLI starts another one in the same project.
    const dir = join(agentHome(), '.claude/projects');
    const folder = (readdirSync(dir, { recursive: true }) as string[]).map((f) => join(dir, f)).find((f) => f.endsWith(`${acpSessionId}.jsonl`))!;
    const file = join(folder, '..', 'a7d0c1e2-5b6f-4a18-9c3d-0e1f2a3b4c5d.jsonl');
    const record = (content: string) =>
      `${JSON.stringify({ type: 'user', sessionId: 'a7d0c1e2-5b6f-4a18-9c3d-0e1f2a3b4c5d', cwd: project, timestamp: new Date().toISOString(), message: { role: 'user', content } })}\n`;
    appendFileSync(file, record('ship the flamingo migration tonight'));
    await expect.poll(async () => (await searchFor(page, 'flamingo')).count(), { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
    // A new line of that open session.
    appendFileSync(file, record('and the heron rollback plan'));
    await expect.poll(async () => (await searchFor(page, 'heron')).count(), { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
  });
});
