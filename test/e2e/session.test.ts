import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';
import { tempDir } from '../support/app-server';
import { appSuite } from '../support/app-suite';
import { setSetting } from '../support/contract-client';
import { activeSession, addAgent, agentRow, agentsSidebar, recordNotifications, sendPrompt, tabButtonOf } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * The session UI end to end in Chromium: the built app in browser mode, the scripted scenario agent
 * (a real ACP process) added as a custom agent through the sidebar, and what a user sees in the tab.
 */

let work = '';
let uiAgentPath = '';

const suite = appSuite('session', async (app) => {
  work = suite.work;
  mkdirSync(join(work, 'src'), { recursive: true });
  writeFileSync(join(work, 'README.md'), '# Demo project\n');
  writeFileSync(join(work, 'src', 'alpha-target.ts'), 'export const alpha = 1;\n');
  uiAgentPath = join(tempDir('sb-ui-agent-'), 'ui-agent.mjs');
  writeFileSync(uiAgentPath, UI_AGENT);
  // The crash test restarts the agent by hand (the supervisor's automatic restart is tested in overview.test.ts).
  await setSetting(app, 'agents.autoRestart', false);
});

afterAll(() => {
  if (uiAgentPath) rmSync(dirname(uiAgentPath), { recursive: true, force: true });
});

const AGENT = 'Scenario';
const UI_AGENT_NAME = 'UI agent';

/**
 * A second, tiny ACP agent (plain JSON-RPC lines, no SDK) for what the scenario agent does not script:
 * multi-line markdown streamed in chunks, a tool call carrying a diff, and an agent that accepts images.
 */
const UI_AGENT = String.raw`
import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let cwd = '/';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const update = (sessionId, u) => send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });
const say = (sessionId, text) => update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const MARKDOWN = [
  '## Plan of ', 'attack\n\n', '- first **item**\n', '- second item\n\n',
  '~~~ts\nconst answer: number = 42;\n~~~\n\n',
  '| a | b |\n|---|---|\n| 1 | 2 |\n\n',
  'Some ~~struck~~ words and a bare www.example.org link.\n\n',
  '<img src=x onerror="window.__pwned=1">\n\n',
  '<script>window.__pwned=2</script>\n\n',
  'A [bad link](javascript:window.__pwned=3) and a [good link](https://example.com/page).\n\n',
  'Inline data image: ![dot](data:image/png;base64,' + PNG + ') and an svg one: ![svg](data:image/svg+xml;base64,PHN2Zy8+)\n\n',
  'The end.',
];
createInterface({ input: process.stdin }).on('line', async (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentInfo: { name: 'ui-agent', version: '0.0.1' }, authMethods: [], agentCapabilities: { promptCapabilities: { image: true } } } });
  } else if (m.method === 'session/new') {
    cwd = m.params.cwd;
    send({ jsonrpc: '2.0', id: m.id, result: { sessionId: 'ui-' + Date.now() } });
  } else if (m.method === 'session/prompt') {
    const sid = m.params.sessionId;
    const blocks = m.params.prompt;
    const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join(' ').trim();
    if (text.startsWith('markdown')) {
      for (const chunk of MARKDOWN) { say(sid, chunk); await new Promise((r) => setTimeout(r, 15)); }
    } else if (text.startsWith('many')) {
      // many <N>: N entries (alternating messages and finished tool calls) as fast as possible.
      const n = Number(text.split(/\s+/)[1] || '1000');
      let out = '';
      for (let i = 0; i < n; i++) {
        const u = i % 2 === 0
          ? { sessionUpdate: 'agent_message_chunk', messageId: 'm' + i, content: { type: 'text', text: 'entry number ' + i } }
          : { sessionUpdate: 'tool_call', toolCallId: 'tc' + i, title: 'tool number ' + i, kind: 'read', status: 'completed' };
        out += JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: u } }) + '\n';
        if (out.length > 65536) { process.stdout.write(out); out = ''; }
      }
      process.stdout.write(out);
      say(sid, 'last entry of many');
    } else if (text.startsWith('retitle')) {
      // retitle <toolCallId> <title…>: an update to a tool call of an earlier turn.
      const [, id, ...title] = text.split(/\s+/);
      update(sid, { sessionUpdate: 'tool_call_update', toolCallId: id, title: title.join(' ') });
      say(sid, 'retitled ' + id);
    } else if (text.startsWith('wait')) {
      await new Promise((r) => setTimeout(r, Number(text.split(/\s+/)[1] || '1000')));
      say(sid, 'waited');
    } else if (text.startsWith('diff')) {
      const path = cwd + '/src/alpha-target.ts';
      update(sid, { sessionUpdate: 'tool_call', toolCallId: 'edit-1', title: 'Edit src/alpha-target.ts', kind: 'edit', status: 'in_progress',
        locations: [{ path, line: 2 }],
        content: [{ type: 'diff', path, oldText: 'export const alpha = 1;\n', newText: 'export const alpha = 1;\nexport const beta = 2;\n' }] });
      update(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'completed' });
      say(sid, 'Edited.');
    } else {
      say(sid, 'got ' + blocks.map((b) => b.type + (b.type === 'image' ? ':' + b.mimeType + ':' + b.data.length : '')).join(','));
    }
    send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn' } });
  } else if (m.id !== undefined && m.method) {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;


async function open(): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await suite.open({ empty: true });
  // A step that never happens fails with its locator named, well before the test's own timeout.
  page.setDefaultTimeout(25_000);
  await page.getByTestId('empty-state').first().waitFor();
  return { page, errors };
}


/** Adds an agent with the sidebar's form (once per app server). */
async function ensureAgent(page: Page, name: string, command: string, args: string[], env: string): Promise<void> {
  const sidebar = agentsSidebar(page);
  // The list loads asynchronously: wait for either the empty note or a row.
  await sidebar.locator('[data-testid=agent-row], [data-testid=agents-empty]').first().waitFor();
  if ((await agentRow(page, name).count()) > 0) return;
  await addAgent(page, { name, command, args, env });
}

/** Starts a session from the launcher (new tab page) and waits until it is ready. */
async function startSession(page: Page, agent: 'scenario' | 'ui' = 'scenario'): Promise<Locator> {
  const name = agent === 'scenario' ? AGENT : UI_AGENT_NAME;
  if (agent === 'scenario') {
    const { command, args } = scenarioAgentCommand();
    await ensureAgent(page, AGENT, command, args, 'SCENARIO_CAPS=resume');
  } else {
    await ensureAgent(page, UI_AGENT_NAME, process.execPath, [uiAgentPath], '');
  }
  await page.locator('.pane.focused .tab-new').click();
  const panel = page.locator('.tab-panel:not([hidden])').getByTestId('launcher-new-session');
  await panel.waitFor();
  await panel.getByTestId('new-session-agent').selectOption({ label: name });
  await panel.getByTestId('new-session-folder').fill(work);
  await panel.getByTestId('new-session-start').click();
  const tab = activeSession(page);
  await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
  return tab;
}

const agentMessages = (tab: Locator) => tab.getByTestId('agent-message');

describe('session tab', { timeout: 90_000 }, () => {
  it('adds an agent through the sidebar, starts a session from the launcher and streams a markdown reply', async () => {
    const { page, errors } = await open();
    const tab = await startSession(page);
    await expect(tab.getByTestId('session-agent').innerText()).resolves.toMatch(/Scenario/);
    await expect(tab.getByTestId('session-header').innerText()).resolves.toContain(work);

    await sendPrompt(tab, 'hello');
    await agentMessages(tab).filter({ hasText: 'Hello from the scenario agent.' }).waitFor();

    // echo answers with the prompt's blocks as JSON: markdown inside it is rendered.
    await sendPrompt(tab, 'echo **bold move** and `inline code`');
    const reply = agentMessages(tab).filter({ hasText: 'bold move' });
    await reply.waitFor();
    await expect(reply.locator('strong').first().innerText()).resolves.toBe('bold move');
    await expect(reply.locator('code').first().innerText()).resolves.toBe('inline code');

    // Every kind of update: title → tab title, usage, plan, thought, tool call.
    await sendPrompt(tab, 'updates');
    await page.locator('[role=tab][aria-selected=true] .tab-title', { hasText: 'Scenario title' }).waitFor();
    await tab.getByTestId('usage').filter({ hasText: '1.2k / 200k' }).waitFor();
    await expect(tab.getByTestId('usage').innerText()).resolves.toMatch(/\$0\.01/);
    await tab.getByTestId('plan').filter({ hasText: 'Step one' }).waitFor();
    await tab.getByTestId('thought').first().waitFor();
    await tab.getByTestId('tool-call').filter({ hasText: 'Read file' }).locator('[data-testid=tool-status]', { hasText: 'Done' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('renders hostile markdown inert: no HTML, no script, links never navigate the app', async () => {
    const { page, errors } = await open();
    const tab = await startSession(page);
    const url = page.url();
    await sendPrompt(
      tab,
      'echo <img src=x onerror=window.__pwned=1> [click me](javascript:window.__pwned=2) <script>window.__pwned=3</script> [safe link](https://example.com/docs) ![pic](https://example.com/t.png)',
    );
    const reply = agentMessages(tab).filter({ hasText: 'click me' });
    await reply.waitFor();
    // Raw HTML is shown as text, never parsed.
    await expect(reply.innerText()).resolves.toContain('<img src=x onerror=window.__pwned=1>');
    await expect(reply.innerText()).resolves.toContain('<script>');
    expect(await reply.locator('img').count()).toBe(0);
    expect(await reply.locator('script').count()).toBe(0);
    // The javascript: link is not a link.
    expect(await reply.locator('a', { hasText: 'click me' }).count()).toBe(0);
    await reply.getByText('click me').click();
    // Clicking it says why it is not opened.
    await page.getByTestId('link-refused').getByTestId('link-refused-ok').click();
    // The http(s) link is opened by the core (system browser) after a confirmation, never by the page.
    const safe = reply.locator('a', { hasText: 'safe link' });
    await expect(safe.getAttribute('href')).resolves.toBe('https://example.com/docs');
    await safe.click();
    await page.getByTestId('link-confirm').getByTestId('link-confirm-cancel').click();
    await safe.click({ button: 'middle' });
    await page.getByTestId('link-confirm').getByTestId('link-confirm-cancel').click();
    // A remote image is not fetched: it becomes a link.
    expect(await reply.locator('img').count()).toBe(0);
    await expect(reply.innerText()).resolves.toContain('pic');
    await page.waitForTimeout(300);
    expect(page.url()).toBe(url);
    expect(page.context().pages()).toHaveLength(1);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('asks for permission in the thread; answered with the keyboard; an "always" answer is reused without asking', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await sendPrompt(tab, 'permission edit');
    const card = tab.getByTestId('permission-card');
    await card.waitFor();
    // Every option the agent offered, and the tab asks for attention.
    await expect(card.getByTestId('permission-option').allInnerTexts()).resolves.toEqual([
      expect.stringContaining('Allow once'),
      expect.stringContaining('Always allow'),
      expect.stringContaining('Reject'),
      expect.stringContaining('Always reject'),
    ]);
    await page.locator('[role=tab][aria-selected=true].status-attention').waitFor();
    await page.keyboard.press('1');
    await agentMessages(tab).filter({ hasText: 'permission: selected yes-just-once' }).waitFor();
    await card.waitFor({ state: 'detached' });
    await tab.getByTestId('tool-call').last().locator('[data-testid=tool-status]', { hasText: 'Done' }).waitFor();

    await sendPrompt(tab, 'permission edit');
    await card.waitFor();
    await page.keyboard.press('2'); // Always allow
    await agentMessages(tab).filter({ hasText: 'permission: selected yes-forever' }).waitFor();

    // The same request again: the rule answers it, with the agent's "once" option (the agent stores nothing more).
    await sendPrompt(tab, 'permission edit');
    await expect.poll(() => agentMessages(tab).filter({ hasText: 'permission: selected yes-just-once' }).count(), { timeout: 20_000 }).toBe(2);
    await expect(tab.getByTestId('permission-card').count()).resolves.toBe(0);
    await tab.getByTestId('tool-call').last().getByTestId('rule-answer').filter({ hasText: 'Allowed by rule' }).waitFor();
    await expect(tab.getByTestId('tool-call').count()).resolves.toBe(3);
    await tab.getByTestId('tool-call').last().locator('[data-testid=tool-status]', { hasText: 'Done' }).waitFor();

    // The rule is listed with the agent; forgetting it makes the agent ask again.
    const agentRow = page.getByTestId('sidebar-agents').getByTestId('agent-row').filter({ hasText: AGENT });
    await agentRow.locator('.agent-name').click();
    const rule = agentRow.getByTestId('permission-rule').filter({ hasText: 'edit' });
    await rule.filter({ hasText: 'always allow' }).waitFor();
    await rule.getByRole('button', { name: /Forget/ }).click();
    await rule.waitFor({ state: 'detached' });
    await sendPrompt(tab, 'permission edit');
    await card.waitFor();
    await card.getByTestId('permission-option').first().focus();
    await page.keyboard.press('1');
    await expect.poll(() => agentMessages(tab).filter({ hasText: 'permission: selected yes-just-once' }).count(), { timeout: WAIT.agent }).toBe(3);

    // Y / N answer with the first allow / reject option.
    await sendPrompt(tab, 'permission read');
    await card.waitFor();
    await page.keyboard.press('n');
    await agentMessages(tab).filter({ hasText: 'permission: selected nope' }).waitFor();
    await tab.getByTestId('tool-call').last().locator('[data-testid=tool-status]', { hasText: 'Failed' }).waitFor();
  });

  it('leads each permission option with what it does; a spoofed name is warned about and an "always" needs confirming', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const spoofed = JSON.stringify([
      { optionId: 'spoof', name: 'Reject', kind: 'allow_always' },
      { optionId: 'nope', name: 'No', kind: 'reject_once' },
    ]);
    await sendPrompt(tab, `permission execute ${spoofed}`);
    const card = tab.getByTestId('permission-card');
    await card.waitFor();
    const first = card.getByTestId('permission-option').first();
    // The app's words first, the agent's quoted name after; the warning is on the card.
    await expect(first.getByTestId('permission-option-action').innerText()).resolves.toBe('Always allow');
    await expect(first.getByTestId('permission-option-name').innerText()).resolves.toBe('“Reject”');
    await expect(first.innerText()).resolves.toMatch(/Always allow[\s\S]*“Reject”/);
    expect(await first.getAttribute('data-mismatch')).toBe('true');
    await expect(card.getByTestId('permission-warning').innerText()).resolves.toContain('labelled this option “Reject”, but it would always allow');
    await expect(card.getByTestId('permission-option').nth(1).getByTestId('permission-option-action').innerText()).resolves.toBe('Reject once');

    // Clicking it (or its key) does not answer: it asks to confirm the rule.
    await first.click();
    const confirm = card.getByTestId('permission-confirm');
    await expect(confirm.innerText()).resolves.toMatch(/always allow requests of this agent like this one, in this folder/);
    await confirm.getByTestId('permission-confirm-back').click();
    await confirm.waitFor({ state: 'detached' });
    await card.getByTestId('permission-option').first().focus();
    await page.keyboard.press('1');
    await confirm.waitFor();
    await card.getByTestId('permission-option').nth(1).click();
    await agentMessages(tab).filter({ hasText: 'permission: selected nope' }).waitFor();
    await card.waitFor({ state: 'detached' });

    // No rule was stored: the agent asks again; confirming knowingly stores it.
    await sendPrompt(tab, `permission execute ${spoofed}`);
    await card.waitFor();
    await card.getByTestId('permission-option').first().click();
    await card.getByTestId('permission-confirm-yes').click();
    await agentMessages(tab).filter({ hasText: 'permission: selected spoof' }).waitFor();
    const agentRow = page.getByTestId('sidebar-agents').getByTestId('agent-row').filter({ hasText: AGENT });
    await agentRow.locator('.agent-name').click();
    await agentRow.getByTestId('permission-rule').filter({ hasText: 'execute' }).filter({ hasText: 'always allow' }).waitFor();
    await agentRow.getByTestId('permission-rule').filter({ hasText: 'execute' }).getByRole('button', { name: /Forget/ }).click();
  });

  it('shows a terminal the agent runs, live in the thread', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await sendPrompt(tab, 'terminal {"command":"sh","args":["-c","echo term-out-$((6*7)); echo second line"]}');
    const terminal = tab.getByTestId('agent-terminal');
    // Both lines, waited for together: the output may arrive in more than one chunk.
    await terminal.locator('.xterm-rows', { hasText: 'term-out-42' }).filter({ hasText: 'second line' }).waitFor();
    await terminal.getByText('Process exited with code 0').waitFor();
  });

  it('Esc stops a running turn and the stop reason is shown', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await sendPrompt(tab, 'slow');
    await agentMessages(tab).filter({ hasText: 'tick 3' }).waitFor();
    await page.locator('[role=tab][aria-selected=true].status-working').waitFor();
    await tab.getByTestId('prompt-input').press('Escape');
    await tab.getByTestId('stop-reason').filter({ hasText: 'Cancelled' }).waitFor();
    await tab.getByTestId('tool-call').filter({ hasText: 'Long job' }).locator('[data-testid=tool-status]', { hasText: 'Cancelled' }).waitFor();
    await tab.and(page.locator('[data-status=idle]')).waitFor();
  });


  it('follows a streaming reply at the bottom; a scroll up stops following until ↓ Latest', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const thread = tab.getByTestId('thread');
    const view = () =>
      thread.evaluate((el) => ({ top: el.scrollTop, fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight, overflow: el.scrollHeight - el.clientHeight }));
    // 40 chunks a second, a new message every 20 chunks: the thread grows well past the window. The stream runs
    // until the test stops it, however slowly a busy machine gets through the steps below.
    await sendPrompt(tab, 'stream 40 600 120 20');
    await expect.poll(async () => (await view()).overflow, { timeout: 20_000 }).toBeGreaterThan(800);
    // At the bottom, every look finds the newest text in view.
    for (let i = 0; i < 10; i++) {
      expect((await view()).fromBottom).toBeLessThan(4);
      await page.waitForTimeout(100);
    }

    // The user scrolls up with the wheel: the view stays where they put it while the agent writes on.
    await thread.hover();
    await page.mouse.wheel(0, -600);
    const latest = tab.getByRole('button', { name: '↓ Latest' });
    await latest.waitFor();
    // The wheel's scroll is animated: wait until it has come to rest.
    let left = await view();
    await expect
      .poll(async () => {
        const before = left.top;
        left = await view();
        return Math.abs(left.top - before) < 1 && left.fromBottom > 300;
      }, { timeout: WAIT.server, interval: 150 })
      .toBe(true);
    await expect.poll(async () => (await view()).overflow, { timeout: WAIT.agent }).toBeGreaterThan(left.overflow + 200);
    expect(Math.abs((await view()).top - left.top)).toBeLessThan(2);

    // ↓ Latest goes back to the bottom and follows again.
    await latest.click();
    await latest.waitFor({ state: 'detached' });
    const back = await view();
    expect(back.fromBottom).toBeLessThan(4);
    await expect.poll(async () => (await view()).overflow, { timeout: WAIT.agent }).toBeGreaterThan(back.overflow + 200);
    expect((await view()).fromBottom).toBeLessThan(4);
    await tab.getByTestId('prompt-input').press('Escape');
    await tab.and(page.locator('[data-status=idle]')).waitFor();
  });

  it('a wheel step up that lands in the same frame as a scroll to the newest text stops following', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const thread = tab.getByTestId('thread');
    const view = () => thread.evaluate((el) => ({ fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight, overflow: el.scrollHeight - el.clientHeight }));
    await sendPrompt(tab, 'stream 40 600 120 20');
    await expect.poll(async () => (await view()).overflow, { timeout: WAIT.agent }).toBeGreaterThan(800);
    // What a smooth wheel does on a busy machine: its first small step up comes right after the thread's own
    // scroll to the bottom of a grown list, and the browser reports both as one scroll, which went down.
    await thread.evaluate((el) => {
      const own = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollTop')!;
      let armed = true;
      Object.defineProperty(el, 'scrollTop', {
        configurable: true,
        get: () => own.get!.call(el) as number,
        set: (v: number) => {
          own.set!.call(el, v);
          if (!armed) return;
          armed = false;
          el.dispatchEvent(new WheelEvent('wheel', { deltaY: -5, bubbles: true, cancelable: true }));
          own.set!.call(el, (own.get!.call(el) as number) - 5);
        },
      });
    });
    await tab.getByRole('button', { name: '↓ Latest' }).waitFor();
    // The view stays where the user left it while the agent writes on.
    await expect.poll(async () => (await view()).fromBottom, { timeout: WAIT.agent }).toBeGreaterThan(300);
    await tab.getByTestId('prompt-input').press('Escape');
    await tab.and(page.locator('[data-status=idle]')).waitFor();
  });

  it('a tab that streamed while hidden is shown at its newest text, and follows on', async () => {
    const { page } = await open();
    const first = await startSession(page);
    const firstButton = await tabButtonOf(page, first);
    const firstId = await first.getAttribute('data-session-id');
    // 40 chunks a second until the test stops it, a new message every 20 chunks; another tab is opened in front of it.
    await sendPrompt(first, 'stream 40 600 120 20');
    await first.getByTestId('agent-message').first().waitFor();
    await startSession(page);
    // Hidden while more than a window's height of it arrives.
    await page.waitForTimeout(2500);
    await firstButton.click();
    const shown = activeSession(page);
    await expect.poll(() => shown.getAttribute('data-session-id'), { timeout: WAIT.server }).toBe(firstId);
    const thread = shown.getByTestId('thread');
    const view = () => thread.evaluate((el) => ({ fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight, overflow: el.scrollHeight - el.clientHeight }));
    await expect.poll(async () => (await view()).overflow, { timeout: WAIT.agent }).toBeGreaterThan(800);
    await expect.poll(async () => (await view()).fromBottom, { timeout: WAIT.server }).toBeLessThan(4);
    const at = await view();
    await expect.poll(async () => (await view()).overflow, { timeout: WAIT.agent }).toBeGreaterThan(at.overflow + 200);
    for (let i = 0; i < 5; i++) {
      expect((await view()).fromBottom).toBeLessThan(4);
      await page.waitForTimeout(100);
    }
    await shown.getByRole('button', { name: '↓ Latest' }).waitFor({ state: 'detached', timeout: 1000 });
    await shown.getByTestId('prompt-input').press('Escape');
    await shown.and(page.locator('[data-status=idle]')).waitFor();
  });
  it("a turn that changed files while its tab was hidden shows its changes once the tab is shown", async () => {
    writeFileSync(join(work, 'hidden-turn.sh'), 'sleep 3 && mkdir -p out && printf "made while hidden\\n" > out/made-while-hidden.txt\n');
    const { page } = await open();
    const first = await startSession(page);
    const firstButton = await tabButtonOf(page, first);
    await sendPrompt(first, 'sh-run hidden-turn.sh');
    await startSession(page);
    // The turn ends (its checkpoint taken) while the tab is hidden.
    await firstButton.locator('.tab-badge.done').waitFor({ timeout: WAIT.agent });
    await firstButton.click();
    const shown = activeSession(page);
    await shown.getByTestId('turn-changes-open').filter({ hasText: '1 added' }).waitFor({ timeout: WAIT.server });
  });
  it('queues prompts sent while the agent works: shown, reordered, edited, removed, then sent', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await sendPrompt(tab, 'slow');
    await agentMessages(tab).filter({ hasText: 'tick 1' }).waitFor();
    await sendPrompt(tab, 'echo first-queued');
    await sendPrompt(tab, 'echo second-queued');
    const items = tab.getByTestId('queue-item');
    await expect.poll(() => items.count(), { timeout: WAIT.server }).toBe(2);
    // Reorder, edit the (now) second, remove the first.
    await items.nth(1).getByRole('button', { name: 'Move up' }).click();
    await expect.poll(() => items.allInnerTexts(), { timeout: WAIT.page }).toEqual([expect.stringContaining('second-queued'), expect.stringContaining('first-queued')]);
    await items.nth(1).getByRole('button', { name: 'Edit' }).click();
    await items.nth(1).getByRole('textbox').fill('echo edited-queued');
    await items.nth(1).getByRole('textbox').press('Enter');
    await items.filter({ hasText: 'edited-queued' }).waitFor();
    await items.nth(0).getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => items.count(), { timeout: WAIT.page }).toBe(1);
    await tab.getByTestId('stop-button').click();
    await agentMessages(tab).filter({ hasText: 'edited-queued' }).waitFor();
    await expect.poll(() => items.count(), { timeout: WAIT.agent }).toBe(0);
    await expect(agentMessages(tab).filter({ hasText: 'second-queued' }).count()).resolves.toBe(0);
  });

  it('an agent crash fails the tab; Restart brings the session back', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    await sendPrompt(tab, 'crash');
    await tab.getByTestId('session-failed').waitFor();
    await page.locator('[role=tab][aria-selected=true].status-failed').waitFor();
    await tab.getByTestId('turn-error').filter({ hasText: 'The agent stopped during this turn' }).waitFor();
    await tab.getByTestId('tool-call').filter({ hasText: 'About to crash' }).locator('[data-testid=tool-status]', { hasText: 'Failed' }).waitFor();
    await tab.getByTestId('restart-agent').click();
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 30_000 });
    await expect(tab.getByTestId('session-failed').count()).resolves.toBe(0);
    await sendPrompt(tab, 'hello');
    await agentMessages(tab).filter({ hasText: 'Hello from the scenario agent.' }).waitFor();
    await page.locator('[role=tab][aria-selected=true]:not(.status-failed)').waitFor();
  });

  it('@ opens a file picker; the chosen file goes to the agent as a mention', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const input = tab.getByTestId('prompt-input');
    await input.fill('echo look at ');
    await input.press('End');
    await input.pressSequentially('@alph');
    const picker = tab.getByTestId('mention-picker');
    // Enter takes the first item of the list as it is: wait until the list is the one for what was typed.
    await expect.poll(() => picker.getByTestId('picker-item').first().innerText(), { timeout: 30_000 }).toContain('src/alpha-target.ts');
    await input.press('Enter');
    await picker.waitFor({ state: 'detached' });
    await expect(input.inputValue()).resolves.toBe('echo look at @src/alpha-target.ts ');
    await tab.getByTestId('mention-chip').filter({ hasText: 'src/alpha-target.ts' }).waitFor();
    await input.press('Enter');
    const reply = agentMessages(tab).filter({ hasText: 'resource_link' });
    await reply.waitFor();
    await expect(reply.innerText()).resolves.toContain(`file://${join(work, 'src', 'alpha-target.ts')}`);
    // The user's message shows the mention as a chip.
    await tab.getByTestId('user-message').last().locator('.mention-chip', { hasText: 'alpha-target.ts' }).waitFor();
  });

  it('streams multi-line markdown: headings, lists, highlighted code, tables, strikethrough, bare links; inline data images only', async () => {
    const { page, errors } = await open();
    const tab = await startSession(page, 'ui');
    await sendPrompt(tab, 'markdown');
    const reply = agentMessages(tab).filter({ hasText: 'The end.' });
    await reply.waitFor();
    await expect(reply.locator('h2').innerText()).resolves.toBe('Plan of attack');
    await expect(reply.locator('li').allInnerTexts()).resolves.toEqual(['first item', 'second item']);
    await expect(reply.locator('li strong').innerText()).resolves.toBe('item');
    await expect(reply.locator('pre code').innerText()).resolves.toContain('const answer: number = 42;');
    expect(await reply.locator('pre code .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await reply.locator('table td').allInnerTexts()).toEqual(['1', '2']);
    // The rest of GFM (its parser extensions are built once, not per render): strikethrough and bare links.
    await expect(reply.locator('del').innerText()).resolves.toBe('struck');
    await expect(reply.locator('a', { hasText: 'www.example.org' }).getAttribute('href')).resolves.toBe('http://www.example.org/');
    // Raw HTML lines are text; the javascript: link is not a link; only the PNG data image is shown.
    await expect(reply.innerText()).resolves.toContain('<img src=x onerror="window.__pwned=1">');
    await expect(reply.innerText()).resolves.toContain('<script>window.__pwned=2</script>');
    expect(await reply.locator('a', { hasText: 'bad link' }).count()).toBe(0);
    await expect(reply.locator('a', { hasText: 'good link' }).getAttribute('href')).resolves.toBe('https://example.com/page');
    const imgs = reply.locator('img');
    await expect(imgs.count()).resolves.toBe(1);
    await expect(imgs.getAttribute('src')).resolves.toMatch(/^data:image\/png;base64,/);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('shows a tool call diff in Monaco, side by side or inline, and opens its location', async () => {
    const { page } = await open();
    const tab = await startSession(page, 'ui');
    await sendPrompt(tab, 'diff');
    const tool = tab.getByTestId('tool-call').filter({ hasText: 'Edit src/alpha-target.ts' });
    await tool.locator('[data-testid=tool-status]', { hasText: 'Done' }).waitFor();
    const diff = tool.locator('[data-testid=monaco-diff][data-ready=true]');
    await diff.waitFor();
    await diff.locator('.view-lines', { hasText: 'export const beta = 2;' }).first().waitFor();
    await diff.locator('.monaco-diff-editor.side-by-side').waitFor();
    await tool.getByRole('button', { name: 'Inline' }).click();
    await expect.poll(() => diff.locator('.monaco-diff-editor.side-by-side').count(), { timeout: WAIT.page }).toBe(0);
    await tool.getByRole('button', { name: 'Side by side' }).click();
    await diff.locator('.monaco-diff-editor.side-by-side').waitFor();
    // The location opens the file (sessions.readFile) at the line.
    await tool.getByTestId('tool-location').filter({ hasText: 'src/alpha-target.ts:2' }).click();
    const viewer = page.locator('.tab-panel:not([hidden]) [data-testid=file-view]');
    // The file as it is on disk (this agent only showed a diff; it did not write).
    await viewer.locator('[data-testid=monaco-viewer][data-ready=true] .view-lines', { hasText: 'export const alpha = 1;' }).waitFor();
    await expect(page.locator('[role=tab][aria-selected=true] .tab-title').innerText()).resolves.toBe('alpha-target.ts:2');
  });

  it('images: pasted into the prompt when the agent takes them, explained when it does not', async () => {
    const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const paste = (input: Locator) =>
      input.evaluate((el, b64) => {
        const bin = atob(b64);
        const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'dot.png', { type: 'image/png' }));
        el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      }, PNG);
    const { page } = await open();
    const plain = await startSession(page);
    await paste(plain.getByTestId('prompt-input'));
    await plain.getByTestId('composer-hint').filter({ hasText: 'does not accept images' }).waitFor();
    expect(await plain.getByTestId('image-chip').count()).toBe(0);

    const tab = await startSession(page, 'ui');
    const input = tab.getByTestId('prompt-input');
    await paste(input);
    await tab.getByTestId('image-chip').waitFor();
    await input.fill('look');
    await input.press('Enter');
    await agentMessages(tab).filter({ hasText: `got text,image:image/png:${PNG.length}` }).waitFor();
    await tab.getByTestId('user-message').last().locator('img').waitFor();
  });

  it('files the agent changed: shown under the turn and in the Files panel, reverted, the revert undone', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const target = join(work, 'notes.txt');
    writeFileSync(target, 'original text\n');
    await sendPrompt(tab, `write ${target} rewritten by the agent`);
    await agentMessages(tab).filter({ hasText: '"ok":true' }).waitFor();
    expect(readFileSync(target, 'utf8')).toBe('rewritten by the agent');
    // The turn's checkpoints: its changes under the turn.
    await tab.getByTestId('turn-changes-open').filter({ hasText: '1 modified' }).waitFor();
    await tab.getByTestId('files-button').filter({ hasText: 'Files changed (1)' }).click();
    const panel = tab.getByTestId('files-panel');
    await panel.getByTestId('change-file').filter({ hasText: 'notes.txt' }).waitFor();
    await panel.locator('[data-testid=monaco-diff][data-ready=true] .view-lines', { hasText: 'rewritten by the agent' }).first().waitFor();
    await panel.getByTestId('revert-file').click();
    await panel.getByTestId('restore-report').filter({ hasText: 'notes.txt' }).waitFor();
    expect(readFileSync(target, 'utf8')).toBe('original text\n');
    await panel.getByTestId('undo-restore').click();
    await expect.poll(() => readFileSync(target, 'utf8'), { timeout: WAIT.server }).toBe('rewritten by the agent');
  });

  it('/ opens the agent’s commands; warnings about bad agent output are shown without stopping the session', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const input = tab.getByTestId('prompt-input');
    await input.pressSequentially('/hel');
    const palette = tab.getByTestId('command-palette');
    await palette.getByTestId('picker-item').filter({ hasText: '/hello' }).waitFor();
    await input.press('Tab');
    await expect(input.inputValue()).resolves.toBe('/hello ');
    await input.fill('malformed');
    await input.press('Enter');
    await agentMessages(tab).filter({ hasText: 'after malformed' }).waitFor();
    await tab.getByTestId('session-warnings').filter({ hasText: /warning/ }).waitFor();
    await tab.getByTestId('session-warnings').getByRole('button', { name: /warning/ }).click();
    await tab.getByTestId('session-warnings').getByText('malformed line').first().waitFor();
  });

  it('a turn that ends in a background tab marks it done; a permission request notifies the desktop when unfocused', async () => {
    const { page } = await open();
    const tab = await startSession(page, 'ui');
    const sessionTab = await tabButtonOf(page, tab);
    await sendPrompt(tab, 'wait 1500');
    await page.locator('.pane.focused .tab-new').click(); // the session tab goes to the background
    await sessionTab.and(page.locator('.status-done')).waitFor();
    await sessionTab.click();
    await agentMessages(tab).filter({ hasText: 'waited' }).waitFor();
    await expect.poll(() => sessionTab.getAttribute('class'), { timeout: WAIT.page }).not.toContain('status-done');

    const scenario = await startSession(page);
    const notes = await recordNotifications(page);
    await sendPrompt(scenario, 'permission execute');
    await scenario.getByTestId('permission-card').waitFor();
    await expect.poll(notes, { timeout: WAIT.server }).toEqual(['Scenario asks for permission']);
    await page.keyboard.press('3'); // Reject
    await agentMessages(scenario).filter({ hasText: 'permission: selected nope' }).waitFor();
  });

  it('a 10,000-entry thread stays virtualized and re-attaches after a reload', async () => {
    const { page, errors } = await open();
    const tab = await startSession(page, 'ui');
    await sendPrompt(tab, 'many 10000');
    await agentMessages(tab).filter({ hasText: 'last entry of many' }).waitFor({ timeout: 60_000 });
    const rows = tab.locator('.thread-row');
    expect(await rows.count()).toBeLessThan(80);
    // Scrolled to the top, the first entries are mounted instead. (A render still in flight when the
    // scroll lands — the turn's end — may keep the view stuck to the bottom once: scroll until it holds.)
    const first = tab.getByTestId('agent-message').filter({ hasText: /^entry number 0$/ });
    await expect
      .poll(
        async () => {
          await tab.getByTestId('thread').evaluate((el) => (el.scrollTop = 0));
          return first.count();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBeGreaterThan(0);
    expect(await rows.count()).toBeLessThan(80);
    // The tab survives a page reload: it attaches to the live session's snapshot.
    await page.reload();
    const again = activeSession(page);
    await agentMessages(again).filter({ hasText: 'last entry of many' }).waitFor({ timeout: 60_000 });
    expect(await again.locator('.thread-row').count()).toBeLessThan(80);
    // An update to a tool call far before the tail the page attached with changes that tool call, where it
    // is: the page does not take it for a new one at the end.
    await sendPrompt(again, 'retitle tc3 Retitled after the reload');
    await agentMessages(again).filter({ hasText: 'retitled tc3' }).waitFor();
    await expect(again.getByTestId('tool-call').filter({ hasText: 'Retitled after the reload' }).count()).resolves.toBe(0);
    await expect
      .poll(
        async () => {
          await again.getByTestId('thread').evaluate((el) => (el.scrollTop = 0));
          return again.getByTestId('tool-call').filter({ hasText: 'Retitled after the reload' }).count();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(1);
    await again.getByTestId('agent-message').filter({ hasText: /^entry number 2$/ }).waitFor();
    expect(errors).toEqual([]);
  }, 120_000);

  it('a reloaded 20,000-entry thread shows its last message at once, and the wheel takes it up to its first', async () => {
    const { page, errors } = await open();
    const tab = await startSession(page);
    await sendPrompt(tab, 'long-thread 20000 lt');
    await agentMessages(tab).filter({ hasText: 'lt/19999: last message' }).waitFor({ timeout: 120_000 });
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });

    // What the page receives until the last message is back on screen: the thread's tail, not all of it
    // (about 6 MB as one snapshot).
    let received = 0;
    page.on('websocket', (ws) => ws.on('framereceived', (f) => (received += typeof f.payload === 'string' ? f.payload.length : f.payload.byteLength)));
    await page.reload();
    const again = activeSession(page);
    await agentMessages(again).filter({ hasText: 'lt/19999: last message' }).waitFor({ timeout: 60_000 });
    expect(received).toBeLessThan(1_000_000);
    const thread = again.getByTestId('thread');
    // The scrollbar is the whole thread's.
    expect(await thread.evaluate((el) => el.scrollHeight)).toBeGreaterThan(500_000);

    // Up with the wheel: earlier entries arrive as they come into view, down to the first.
    const box = (await thread.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const first = agentMessages(again).filter({ hasText: 'lt/0: first message of the long thread' });
    for (let i = 0; i < 2000 && (await first.count()) === 0; i++) {
      const height = await thread.evaluate((el) => el.scrollHeight);
      await page.mouse.wheel(0, -Math.max(2000, Math.round(height / 100)));
    }
    await first.waitFor();
    await again.getByTestId('user-message').filter({ hasText: 'long-thread 20000 lt' }).waitFor();
    expect(await again.locator('.thread-row').count()).toBeLessThan(80);
    // The scrollbar dragged to the middle: the entries there come (without those in between).
    await thread.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    const shown = async () => (await agentMessages(again).allInnerTexts()).map((text) => Number(/^lt\/(\d+):/.exec(text)?.[1] ?? -1));
    await expect.poll(async () => (await shown()).some((i) => i > 2000 && i < 18000), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => again.getByTestId('thread-pending').count(), { timeout: WAIT.server }).toBe(0);
    expect(errors).toEqual([]);
  }, 300_000);

  it('changes a config option; the header shows what the agent answered', async () => {
    const { page } = await open();
    const tab = await startSession(page);
    const model = tab.locator('[data-testid=config-option][data-config-id=model] select');
    await expect(model.inputValue()).resolves.toBe('fast');
    await model.selectOption('smart');
    await expect.poll(() => model.inputValue(), { timeout: WAIT.agent }).toBe('smart');
    const think = tab.locator('[data-testid=config-option][data-config-id=think] input[type=checkbox]');
    await think.check();
    await expect.poll(() => think.isChecked(), { timeout: WAIT.agent }).toBe(true);
    const mode = tab.locator('[data-testid=config-option][data-config-id=mode] select');
    await mode.selectOption('code');
    await expect.poll(() => mode.inputValue(), { timeout: WAIT.agent }).toBe('code');
  });
});
