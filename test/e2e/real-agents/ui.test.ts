import { existsSync, writeFileSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startAppServer, type AppServer } from '../../support/app-server';
import { launchBrowser, openApp } from '../../support/browser';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index.js';
import { agentLaunch, createAgentHome, REAL_AGENTS, requireOrSkipAgent, type RealAgentId } from '../../support/real-agents/index.js';
import { WAIT } from '../../support/waits';

/**
 * Real third-party ACP agents (installed from npm by scripts/install-test-agents.mjs) driven end to end through
 * the UI in Chromium: the built app in browser mode, the agent added as a custom agent through the sidebar, its
 * model a fake LLM on 127.0.0.1, and only what a user does — typing prompts, answering permission cards, Esc.
 *
 * Not installed: skipped with a message. With SWITCHBOARD_REQUIRE_REAL_AGENTS=1 (CI) a missing agent fails the file.
 * REAL_AGENTS_ONLY=claude-code,gemini runs only those agents (while debugging one).
 */

interface AgentCase {
  /** (Claude Agent is covered in-process by test/main/acp/claude-agent.test.ts.) */
  id: Exclude<RealAgentId, 'claude-agent'>;
  /** The name given in the add-agent form. */
  name: string;
  /** Gemini 0.61 reads a file before writing it and treats "missing" as a failure: the compat flag answers it empty. */
  missingFileAsEmpty: boolean;
  /** A mode to pick in the session header before the first prompt (Qwen starts in `auto`: no permission asked). */
  mode?: { from: string; to: string };
  /**
   * Where the output of a shell command shows: a client terminal (live xterm), the tool call's text content, or
   * only the agent's reply (Gemini CLI 0.61 sends none of it to the client).
   */
  shell: 'client-terminal' | 'tool-content' | 'reply-only';
}

const ONLY = process.env['REAL_AGENTS_ONLY']?.split(',');
const CASES: AgentCase[] = ([
  { id: 'claude-code', name: 'Claude Code (real)', missingFileAsEmpty: false, shell: 'client-terminal' },
  { id: 'gemini', name: 'Gemini CLI (real)', missingFileAsEmpty: true, shell: 'reply-only' },
  { id: 'qwen', name: 'Qwen Code (real)', missingFileAsEmpty: false, mode: { from: 'auto', to: 'default' }, shell: 'tool-content' },
] satisfies AgentCase[]).filter((c) => !ONLY || ONLY.includes(c.id));

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

/** Agent homes and project folders: removed once the app server (and with it every agent process) stopped. */
const scratch: string[] = [];

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await llm?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The visible session tab. */
const tabPanel = (page: Page): Locator => page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
const toolCalls = (tab: Locator): Locator => tab.getByTestId('tool-call');
const status = (tool: Locator, text: string): Locator => tool.locator('[data-testid=tool-status]', { hasText: text });

async function send(tab: Locator, text: string): Promise<void> {
  const input = tab.getByTestId('prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await expect.poll(() => input.inputValue(), { timeout: WAIT.page }).toBe('');
}

for (const c of CASES) {
  describe.skipIf(!available[c.id])(`${REAL_AGENTS[c.id].title} ${REAL_AGENTS[c.id].version} through the UI`, { timeout: 180_000 }, () => {
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
      try {
        await setUp();
      } catch (e) {
        throw new Error(`${c.id}: set-up failed: ${String(e)}\n${await diagnostics()}`);
      }
    }, 180_000);

    async function setUp(): Promise<void> {
      const home = createAgentHome(c.id);
      // realpath: agents canonicalise their cwd; the paths asserted on disk must be theirs.
      work = realpathSync(mkdtempSync(join(tmpdir(), `sb-real-${c.id}-`)));
      scratch.push(home.home, work);
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
      if (c.mode) {
        // The header's mode picker: the session's modes, or a config option of category "mode" (Qwen has both).
        const picker = (state = '') => tab.locator(`[data-testid=mode-picker] select${state}, [data-testid=config-option][data-category=mode] select${state}`);
        await expect(picker().inputValue()).resolves.toBe(c.mode.from);
        await picker().selectOption(c.mode.to);
        // Enabled again once the agent answered; it then shows what the agent reports.
        await picker(':enabled').waitFor();
        await expect(picker().inputValue()).resolves.toBe(c.mode.to);
      }
    }

    afterAll(async () => {
      // The agent keeps running (and writing into its home) until the app server stops: see `scratch`.
      await context?.close().catch(() => {});
    });

    it('a write: the diff in Monaco, the permission card, allowed; the file is on disk and the tool call is done', async () => {
      explainFailure();
      const file = join(work, `${key('notes')}.txt`);
      const content = `first=${c.id}\nsecond=written-through-the-ui\n`;
      llm.when(key('make-notes'), [{ kind: 'write', path: file, content }]);
      await send(tab, `please ${key('make-notes')} for me`);

      const tool = toolCalls(tab).filter({ has: page.locator('[data-testid=tool-diff]') }).last();
      await expect(tool.getAttribute('data-kind')).resolves.toBe('edit');
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
      await tab.and(page.locator('[data-status=idle]')).waitFor();
      // Written with the agent's own tool or through the client: the turn's checkpoints show it either way.
      await expect.poll(() => tab.getByTestId('turn-changes-open').last().innerText(), { timeout: 30_000 }).toContain('added');
    });

    it('a shell command: allowed from the card, its output shown in the thread', async () => {
      explainFailure();
      // The command leaves a file in the project folder (and `touch` is not read-only: Qwen asks before it), and
      // its output differs from its text, so seeing the output proves it ran. No `$(( ))`: Gemini refuses
      // command substitution syntax.
      const marker = join(work, `${key('ran')}.marker`);
      const command = `touch ${key('ran')}.marker && printf '%s-%s\\n' shell out42 && echo ${key('second-line')}`;
      llm.when(key('run-it'), [{ kind: 'shell', command }]);
      await send(tab, `please ${key('run-it')} now`);

      const asking = toolCalls(tab).filter({ has: page.locator('[data-testid=permission-card]') }).last();
      await asking.waitFor();
      // The card leaves the tool call once answered: follow the tool call by its id.
      const tool = tab.locator(`[data-testid=tool-call][data-tool-call-id="${await asking.getAttribute('data-tool-call-id')}"]`);
      await expect(tool.getAttribute('data-kind')).resolves.toBe('execute');
      const card = tool.getByTestId('permission-card');
      await card.locator('[data-testid=permission-option][data-kind=allow_once]').click();
      await card.waitFor({ state: 'detached' });

      if (c.shell === 'client-terminal') {
        // Claude Code runs it in a client terminal: a live xterm in the tool call, with the exit status.
        const terminal = tool.getByTestId('agent-terminal');
        // Both lines, waited for together: the output may arrive in more than one chunk.
        await terminal.locator('.xterm-rows', { hasText: 'shell-out42' }).filter({ hasText: key('second-line') }).waitFor();
        await terminal.getByText('Process exited with code 0').waitFor();
      } else if (c.shell === 'tool-content') {
        // Qwen runs it itself and reports the output as the tool call's text content, which the thread shows
        // collapsed (only diffs and terminals open by themselves): the user opens the tool call to read it.
        await status(tool, 'Done').waitFor();
        const head = tool.locator('.tool-head');
        if ((await head.getAttribute('aria-expanded')) === 'false') await head.click();
        await tool.locator('.tool-body', { hasText: 'shell-out42' }).filter({ hasText: key('second-line') }).waitFor();
      } else {
        // Gemini CLI 0.61 runs it itself and sends no output to the client: its ACP layer drops the shell's
        // display (an AnsiOutput object, not text) and the tool_call_update carries `content: []`. The tool call
        // shows the command that ran; the output reaches the user through the agent's reply (below).
        await expect(tool.locator('.tool-title').innerText()).resolves.toBe(command);
      }
      await status(tool, 'Done').waitFor();
      expect(existsSync(marker)).toBe(true);
      // The output went back to the model; the fake model quotes the tool result in its closing message.
      // The reply streams: wait for all of it (read at once, it can stop mid-word).
      const reply = tab.getByTestId('agent-message').filter({ hasText: 'all 1 step(s) done' }).filter({ hasText: 'shell-out42' });
      await reply.filter({ hasText: key('second-line') }).waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();
    });

    it('Esc mid-turn stops a streaming reply: cancelled is shown and the session takes the next prompt', async () => {
      explainFailure();
      llm.when(key('take-your-time'), [{ kind: 'slow', chunks: 600, chunkDelayMs: 100 }]);
      llm.when(key('after-cancel'), [{ kind: 'text', text: `back after the cancel (${c.id})` }]);
      await send(tab, `please ${key('take-your-time')}`);

      // The reply is visibly streaming (the fake model's slow text: "The quick brown fox …", repeated).
      await tab.getByTestId('agent-message').filter({ hasText: 'quick brown fox' }).last().waitFor();
      await page.locator('[role=tab][aria-selected=true].status-working').waitFor();
      await tab.getByTestId('prompt-input').press('Escape');
      await tab.getByTestId('stop-reason').filter({ hasText: 'Cancelled' }).last().waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();
      // The agent hung up on the model instead of reading the whole 60 s reply.
      const slow = await llm.waitForRequest((r) => (r.promptText ?? '').includes(key('take-your-time')) && r.kind === 'turn' && r.done, { timeoutMs: 30_000 });
      expect(slow.aborted).toBe(true);

      await send(tab, `then ${key('after-cancel')}`);
      await tab.getByTestId('agent-message').filter({ hasText: `back after the cancel (${c.id})` }).waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();
    });

    it('the store holds the exchange: history search finds the file and the command in this session', async () => {
      explainFailure();
      const sessionId = await tab.getAttribute('data-session-id');
      expect(sessionId).toBeTruthy();
      await page.keyboard.press('Control+k');
      const input = page.getByTestId('history-search-input');
      await input.waitFor();
      // The written file's name (tool call), the command's output line (tool call and reply), the prompt sent
      // after the cancel.
      for (const query of [`${key('notes')}.txt`, key('second-line'), key('after-cancel')]) {
        await input.fill(query);
        await page.locator(`[data-testid=history-hits][data-query="${query}"] [data-testid=history-hit][data-session-id="${sessionId}"]`).first().waitFor();
      }
      await page.keyboard.press('Escape');
      await page.getByTestId('history-search').waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
    });

    it('checkpoints: a file the agent changed with its own shell shows in the turn; a hunk is reverted on disk; the turn is rewound and the rewind undone', async () => {
      explainFailure();
      // The user's file, and the version the agent's shell copies over it (two separate changed lines).
      const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of ${c.id}`);
      const original = `${lines.join('\n')}\n`;
      const changed = `${lines.map((l, i) => (i === 1 || i === 9 ? `${l} CHANGED-${i + 1}` : l)).join('\n')}\n`;
      const seed = join(work, `${key('seed')}.txt`);
      writeFileSync(seed, original);
      writeFileSync(join(work, `${key('v2')}.src`), changed);
      llm.when(key('copy-it'), [{ kind: 'shell', command: `cp ${key('v2')}.src ${key('seed')}.txt` }]);
      await send(tab, `please ${key('copy-it')} now`);
      const card = tab.getByTestId('permission-card').last();
      await card.locator('[data-testid=permission-option][data-kind=allow_once]').click();
      await tab.getByTestId('agent-message').filter({ hasText: 'all 1 step(s) done' }).last().waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();
      await expect.poll(() => readFileSync(seed, 'utf8'), { timeout: WAIT.agent }).toBe(changed);

      // Under the turn: the file the shell changed (whoever wrote it, the checkpoints saw it).
      const open = tab.getByTestId('turn-changes-open').last();
      await expect.poll(() => open.innerText(), { timeout: 30_000 }).toContain('modified');
      await open.click();
      // The review opens in a tab of its own (a review tab of another agent's suite may be restored, hidden).
      const review = page.locator('.tab-panel:not([hidden])').getByTestId('review-tab');
      const fileButton = review.getByTestId('change-file').filter({ hasText: `${key('seed')}.txt` }).getByRole('button');
      // The first changed file opens by itself; another is opened by a click.
      if ((await fileButton.getAttribute('aria-expanded')) !== 'true') await fileButton.click();
      await review.locator('[data-testid=monaco-diff][data-ready=true] .view-lines', { hasText: 'CHANGED-10' }).first().waitFor();
      await review.getByTestId('revert-hunk').first().click();
      const report = review.getByTestId('restore-report').filter({ hasText: `${key('seed')}.txt` });
      await report.waitFor();
      // A refusal names the file too: it would say why here.
      expect(await report.getByTestId('restore-refused').count(), await report.innerText()).toBe(0);
      const afterHunk = `${lines.map((l, i) => (i === 9 ? `${l} CHANGED-10` : l)).join('\n')}\n`;
      await expect.poll(() => readFileSync(seed, 'utf8'), { timeout: WAIT.server }).toBe(afterHunk);

      // Rewind the folder to before the turn, then undo the rewind (its own report: the files change on disk before
      // the call returns and the hunk's report makes way for it).
      const hunkRestore = await report.getAttribute('data-restore-id');
      await review.getByTestId('rewind-turn').first().click();
      await expect.poll(() => readFileSync(seed, 'utf8'), { timeout: WAIT.server }).toBe(original);
      const rewindReport = review.locator(`[data-testid=restore-report]:not([data-restore-id="${hunkRestore}"])`);
      await rewindReport.waitFor();
      await rewindReport.getByTestId('undo-restore').click();
      await expect.poll(() => readFileSync(seed, 'utf8'), { timeout: WAIT.server }).toBe(afterHunk);
      await page.keyboard.press('Control+w');
      await tab.waitFor();
      expect(errors).toEqual([]);
    });

    it('an "always" answer to a command: Switchboard remembers no more than the label said; the rule file the agent wrote itself is listed', async () => {
      explainFailure();
      // Qwen and Gemini run read-only commands (echo) without asking: `touch` asks.
      const command = c.id === 'claude-code' ? `echo ${key('always')}` : `touch ${key('always')}.marker`;
      const folder = basename(work);
      // What each agent's first "always" option says, and what Switchboard makes of it.
      const expected = {
        // "Always Allow" names nothing narrower: this very command. Claude Code itself stores every Bash
        // command ("mcp__acp__Bash") in the project's .claude/settings.local.json.
        'claude-code': { remembers: `run ${command} in ${folder}`, rule: `command exactly ${command}`, session: false, own: join(work, '.claude', 'settings.local.json') },
        // "Always Allow in project: touch *": that prefix, in this folder; Qwen writes its own rule to .qwen/settings.json.
        qwen: { remembers: `run touch * in ${folder}`, rule: 'command starting with touch *', session: false, own: join(work, '.qwen', 'settings.json') },
        // "Allow for this session": this command, this session.
        gemini: { remembers: `run ${command} in ${folder} (this session only)`, rule: `command exactly ${command}`, session: true, own: null },
      }[c.id];
      llm.when(key('always-run'), [{ kind: 'shell', command }]);
      await send(tab, `please ${key('always-run')} now`);
      const card = tab.getByTestId('permission-card').last();
      await card.waitFor();
      const always = card.locator('[data-testid=permission-option][data-kind=allow_always]').first();
      const remembers = card.locator(`[data-testid=permission-option-rule][data-option-id="${await always.getAttribute('data-option-id')}"]`);
      await expect(remembers.innerText()).resolves.toContain(`remember: ${expected.remembers}`);
      await always.click();
      await tab.getByTestId('agent-message').filter({ hasText: 'all 1 step(s) done' }).last().waitFor();
      await tab.and(page.locator('[data-status=idle]')).waitFor();

      await page.keyboard.press('Control+,');
      // (The other agents' suites may have left a Settings tab in the saved layout: this pane's is the one.)
      const perms = page.locator('.pane.focused .tab-panel:not([hidden]) [data-testid=settings-tab] [data-section=permissions]');
      const rule = perms.getByTestId('settings-permission-rule').filter({ hasText: c.name });
      await expect(rule.getByTestId('rule-pattern-text').innerText()).resolves.toBe(expected.rule);
      const cells = await rule.locator('td').allInnerTexts();
      expect(cells[3]).toBe(work);
      expect(cells[4] === 'any').toBe(!expected.session);
      const files = perms.getByTestId('agent-rule-files');
      await expect(files.innerText()).resolves.toMatch(/never reach Switchboard/);
      if (expected.own) await expect(files.getByTestId('agent-rule-file').filter({ hasText: expected.own }).innerText()).resolves.toContain('1 entry');
      await page.locator('.pane.focused [role=tab][aria-selected=true]', { hasText: 'Settings' }).locator('.tab-close').click();
      await tab.waitFor();
    });
  });
}
