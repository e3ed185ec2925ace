import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startAppServer, type AppServer } from '../support/app-server';
import { launchBrowser, openApp } from '../support/browser';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm/index.js';
import { agentLaunch, createAgentHome, REAL_AGENTS, requireOrSkipAgent, type AgentHome, type RealAgentId } from '../support/real-agents/index.js';

/**
 * Real third-party ACP agents (installed from npm by scripts/install-test-agents.mjs) driven end to end through
 * the UI in Chromium: the built app in browser mode, the agent added as a custom agent through the sidebar, its
 * model a fake LLM on 127.0.0.1, and only what a user does — typing prompts, answering permission cards, Esc.
 *
 * Not installed: skipped with a message. With SWITCHBOARD_REQUIRE_REAL_AGENTS=1 (CI) a missing agent fails the file.
 */

interface AgentCase {
  id: RealAgentId;
  /** The name given in the add-agent form. */
  name: string;
  /** Gemini 0.61 reads a file before writing it and treats "missing" as a failure: the compat flag answers it empty. */
  missingFileAsEmpty: boolean;
  /** How the agent's shell command output reaches the thread. */
  shell: 'client-terminal' | 'tool-content';
}

const CASES: AgentCase[] = [
  { id: 'claude-code', name: 'Claude Code (real)', missingFileAsEmpty: false, shell: 'client-terminal' },
  { id: 'gemini', name: 'Gemini CLI (real)', missingFileAsEmpty: true, shell: 'tool-content' },
];

// Evaluated at collection: skips (with a message) or, under SWITCHBOARD_REQUIRE_REAL_AGENTS=1, throws.
const available = Object.fromEntries(CASES.map((c) => [c.id, requireOrSkipAgent(c.id)])) as Record<RealAgentId, boolean>;
const anyAvailable = Object.values(available).some(Boolean);

let llm: FakeLlm;
let app: AppServer;
let browser: Browser;

beforeAll(async () => {
  if (!anyAvailable) return;
  [llm, app, browser] = await Promise.all([startFakeLlm(), startAppServer(), launchBrowser()]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await llm?.close();
}, 60_000);

/** The visible session tab. */
const tabPanel = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
const toolCalls = (tab: Locator): Locator => tab.getByTestId('tool-call');
const status = (tool: Locator, text: string): Locator => tool.locator('[data-testid=tool-status]', { hasText: text });

async function send(tab: Locator, text: string): Promise<void> {
  const input = tab.getByTestId('prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await expect.poll(() => input.inputValue()).toBe('');
}

for (const c of CASES) {
  describe.skipIf(!available[c.id])(`${REAL_AGENTS[c.id].title} ${REAL_AGENTS[c.id].version} through the UI`, { timeout: 180_000 }, () => {
    let home: AgentHome;
    let work: string;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    let tab: Locator;
    /** Prompts are matched by the fake LLM on these words; unique per agent so the scripts never cross. */
    const key = (what: string) => `${c.id}-${what}`;

    const diagnostics = async (): Promise<string> => {
      const shot = page ? await page.locator('body').innerText().catch(() => '(no page text)') : '(no page)';
      return [
        `--- fake LLM requests ---\n${llm?.describeLog() ?? ''}`,
        `--- app server output (tail) ---\n${app?.output().slice(-4000) ?? ''}`,
        `--- page console errors ---\n${errors?.join('\n') ?? ''}`,
        `--- page text (tail) ---\n${shot.slice(-3000)}`,
      ].join('\n');
    };
    const explainFailure = () =>
      onTestFailed(async () => {
        console.error(`[${c.id}] ${await diagnostics()}`);
      });

    beforeAll(async () => {
      home = createAgentHome(c.id);
      // realpath: agents canonicalise their cwd; the paths asserted on disk must be theirs.
      work = realpathSync(mkdtempSync(join(tmpdir(), `sb-real-${c.id}-`)));
      const launch = agentLaunch(c.id, { llmUrl: llm.url, home: home.home });

      ({ context, page, errors } = await openApp(browser, app.url));
      // A step that never happens fails naming its locator, well before the test's own timeout.
      page.setDefaultTimeout(60_000);
      await page.getByTestId('workspace').waitFor();

      // Add the agent through the sidebar's form: its command, one argument per line, NAME=value env lines.
      const sidebar = page.getByTestId('sidebar-agents');
      await sidebar.locator('[data-testid=agent-row], [data-testid=agents-empty]').first().waitFor();
      await sidebar.getByTestId('add-custom-agent').click();
      const form = page.getByTestId('agent-form');
      await form.getByTestId('agent-name').fill(c.name);
      await form.getByTestId('agent-command').fill(launch.command);
      await form.getByTestId('agent-args').fill(launch.args.join('\n'));
      await form.getByTestId('agent-env').fill(
        Object.entries(launch.env)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n'),
      );
      await form.getByTestId('agent-save').click();
      await form.waitFor({ state: 'detached' });
      const row = sidebar.getByTestId('agent-row').filter({ hasText: c.name });
      await row.waitFor();

      // The compatibility flag is set where a user sets it: the agent's edit form.
      if (c.missingFileAsEmpty) {
        await row.locator('.agent-name').click();
        await row.getByTestId('agent-edit').click();
        await form.getByTestId('agent-compat-missing-file').check();
        await form.getByTestId('agent-save').click();
        await form.waitFor({ state: 'detached' });
        await row.getByTestId('agent-edit').click();
        await expect(form.getByTestId('agent-compat-missing-file').isChecked()).resolves.toBe(true);
        await form.getByRole('button', { name: 'Cancel' }).click();
        await form.waitFor({ state: 'detached' });
      }

      // A session in the project folder, started from the launcher.
      await page.locator('.pane.focused .tab-new').click();
      const launcher = page.locator('.tab-panel:not([hidden])').getByTestId('launcher-new-session');
      await launcher.getByTestId('new-session-agent').selectOption({ label: c.name });
      await launcher.getByTestId('new-session-folder').fill(work);
      await launcher.getByTestId('new-session-start').click();
      tab = tabPanel(page);
      // Cold start of a real agent on a loaded machine: generous.
      await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 120_000 });
      await expect(tab.getByTestId('session-agent').innerText()).resolves.toContain(c.name);
    }, 180_000);

    afterAll(async () => {
      await context?.close().catch(() => {});
      home?.dispose();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('a write: the diff in Monaco, the permission card, allowed; the file is on disk and the tool call is done', async () => {
      explainFailure();
      const file = join(work, `${key('notes')}.txt`);
      const content = `first=${c.id}\nsecond=written-through-the-ui\n`;
      llm.when(key('make-notes'), [{ kind: 'write', path: file, content }]);
      await send(tab, `please ${key('make-notes')} for me`);

      const tool = toolCalls(tab).filter({ has: page.locator('[data-testid=tool-diff]') }).last();
      // The diff is shown in Monaco while the agent waits for the answer.
      const diff = tool.locator('[data-testid=monaco-diff][data-ready=true]');
      await diff.locator('.view-lines', { hasText: 'second=written-through-the-ui' }).first().waitFor();
      const card = tool.getByTestId('permission-card');
      await card.waitFor();
      await status(tool, 'Waiting for you').waitFor();
      await page.locator('[role=tab][aria-selected=true].status-attention').waitFor();
      expect(existsSync(file)).toBe(false);
      // Y answers with the "allow once" option the agent offered.
      expect(await card.locator('[data-testid=permission-option][data-kind=allow_once]').count()).toBe(1);
      await page.keyboard.press('y');
      await card.waitFor({ state: 'detached' });

      await status(tool, 'Done').waitFor();
      await expect.poll(() => (existsSync(file) ? readFileSync(file, 'utf8') : null), { timeout: 30_000 }).toBe(content);
      // The fake model's closing message arrives once the tool result went back to it; the turn ends.
      await tab.getByTestId('agent-message').filter({ hasText: 'all 1 step(s) done' }).waitFor();
      await tab.getByTestId('stop-reason').last().and(page.locator('[data-reason=end_turn]')).waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();
    });

    it('a shell command: allowed from the card, its output shown in the thread', async () => {
      explainFailure();
      // The output differs from the command text, so seeing it proves the command ran.
      const command = `echo shell-out-$((6*7)) && echo ${key('second-line')}`;
      llm.when(key('run-it'), [{ kind: 'shell', command }]);
      await send(tab, `please ${key('run-it')} now`);

      const tool = toolCalls(tab).filter({ has: page.locator('[data-testid=permission-card]') }).last();
      const card = tool.getByTestId('permission-card');
      await card.waitFor();
      await card.locator('[data-testid=permission-option][data-kind=allow_once]').click();
      await card.waitFor({ state: 'detached' });

      const ran = toolCalls(tab).last();
      if (c.shell === 'client-terminal') {
        // Claude Code runs it in a client terminal: a live xterm in the tool call.
        const terminal = tab.getByTestId('agent-terminal').last();
        await terminal.locator('.xterm-rows', { hasText: 'shell-out-42' }).waitFor();
        await expect(terminal.locator('.xterm-rows').innerText()).resolves.toContain(key('second-line'));
        await terminal.getByText('Process exited with code 0').waitFor();
      } else {
        // Gemini runs it itself: the output comes back as the tool call's content.
        await ran.locator('.tool-body', { hasText: 'shell-out-42' }).waitFor();
        await expect(ran.locator('.tool-body').innerText()).resolves.toContain(key('second-line'));
      }
      await status(ran, 'Done').waitFor();
      await tab.getByTestId('agent-message').filter({ hasText: 'all 1 step(s) done' }).last().waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();
    });

    it('Esc mid-turn stops a streaming reply: cancelled is shown and the session takes the next prompt', async () => {
      explainFailure();
      llm.when(key('take-your-time'), [{ kind: 'slow', chunks: 600, chunkDelayMs: 100 }]);
      llm.when(key('after-cancel'), [{ kind: 'text', text: `back after the cancel (${c.id})` }]);
      await send(tab, `please ${key('take-your-time')}`);

      // The reply is visibly streaming (the fake model's slow text: "The quick brown fox …", repeated).
      await tab.getByTestId('agent-message').filter({ hasText: "quick brown fox" }).last().waitFor();
      await page.locator('[role=tab][aria-selected=true].status-working').waitFor();
      await tab.getByTestId('prompt-input').press('Escape');
      await tab.getByTestId('stop-reason').filter({ hasText: 'Cancelled' }).last().waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();
      // The agent hung up on the model instead of reading the whole 60 s reply.
      const slow = await llm.waitForRequest((r) => r.promptText.includes(key('take-your-time')) && r.kind === 'turn' && r.done, { timeoutMs: 30_000 });
      expect(slow.aborted).toBe(true);

      await send(tab, `then ${key('after-cancel')}`);
      await tab.getByTestId('agent-message').filter({ hasText: `back after the cancel (${c.id})` }).waitFor();
      await tab.getByTestId('stop-reason').last().and(page.locator('[data-reason=end_turn]')).waitFor();
    });

    it('the store holds the exchange: history search finds the file and the command in this session', async () => {
      explainFailure();
      const sessionId = await tab.getAttribute('data-session-id');
      expect(sessionId).toBeTruthy();
      await page.keyboard.press('Control+k');
      const input = page.getByTestId('history-search-input');
      await input.waitFor();
      for (const query of [`${key('notes')}.txt`, key('second-line'), key('after-cancel')]) {
        await input.fill(query);
        await page.locator(`[data-testid=history-hits][data-query="${query}"], [data-testid=history-search-empty][data-query="${query}"]`).first().waitFor();
        await page.locator(`[data-testid=history-hit][data-session-id="${sessionId}"]`).first().waitFor();
      }
      await page.keyboard.press('Escape');
      await page.getByTestId('history-search').waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    });
  });
}
