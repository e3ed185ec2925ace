import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addAgent, startSessionFromSidebar } from '../support/ui';

/**
 * A tool call's body opens when its diff or terminal arrives in a later update (real agents — Claude Code,
 * Gemini CLI — announce the tool call first and add the content after the permission answer), unless the user
 * collapsed it: then it stays collapsed.
 */

const AGENT = String.raw`
import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let cwd = '/';
const update = (sessionId, u) => send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });
const say = (sessionId, text) => update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
createInterface({ input: process.stdin }).on('line', async (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentInfo: { name: 'late-agent', version: '0.0.1' }, authMethods: [], agentCapabilities: {} } });
  } else if (m.method === 'session/new') {
    cwd = m.params.cwd;
    send({ jsonrpc: '2.0', id: m.id, result: { sessionId: 'late-' + Date.now() } });
  } else if (m.method === 'session/prompt') {
    const sid = m.params.sessionId;
    const [word, id, title] = m.params.prompt.filter((b) => b.type === 'text').map((b) => b.text).join(' ').trim().split(/\s+/);
    const path = cwd + '/' + id + '.txt';
    if (word === 'announce') {
      // A tool call without content, as real agents send it before asking.
      update(sid, { sessionUpdate: 'tool_call', toolCallId: id, title: 'Write ' + id, kind: 'edit', status: 'pending', rawInput: { path } });
      say(sid, 'announced ' + id);
    } else if (word === 'content') {
      update(sid, { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'diff', path, oldText: null, newText: 'late-content-of-' + id + '\n' }] });
      say(sid, 'content for ' + id);
    } else if (word === 'retitle') {
      update(sid, { sessionUpdate: 'tool_call_update', toolCallId: id, title });
      say(sid, 'retitled ' + id);
    }
    send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn' } });
  } else if (m.id !== undefined && m.method) {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

let agentPath = '';
const suite = appSuite('expand', async () => {
  agentPath = join(suite.work, '.late-agent.mjs');
  writeFileSync(agentPath, AGENT);
});

async function startSession(page: Page): Promise<Locator> {
  const row = await addAgent(page, { name: 'Late agent', command: process.execPath, args: [agentPath] });
  return startSessionFromSidebar(page, row, suite.work);
}

async function send(tab: Locator, text: string, reply: string): Promise<void> {
  const input = tab.getByTestId('prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await tab.getByTestId('agent-message').filter({ hasText: reply }).waitFor();
}

describe('tool call body', { timeout: 90_000 }, () => {
  it('opens when a diff arrives after the tool call; stays as the user left it once toggled', async () => {
    const { page } = await suite.open();
    page.setDefaultTimeout(25_000);
    const tab = await startSession(page);

    // Announced without content: collapsed. The diff arrives: the body opens and shows it in Monaco.
    await send(tab, 'announce first', 'announced first');
    const first = tab.getByTestId('tool-call').filter({ hasText: 'Write first' });
    await expect(first.locator('.tool-head').getAttribute('aria-expanded')).resolves.toBe('false');
    await send(tab, 'content first', 'content for first');
    await first.locator('[data-testid=monaco-diff][data-ready=true] .view-lines', { hasText: 'late-content-of-first' }).first().waitFor();

    // Collapsed by the user, then updated by the agent: it stays collapsed.
    await send(tab, 'announce second', 'announced second');
    await send(tab, 'content second', 'content for second');
    const second = tab.getByTestId('tool-call').filter({ hasText: 'second' });
    await second.getByTestId('tool-diff').waitFor();
    await second.locator('.tool-head').click();
    await second.getByTestId('tool-diff').waitFor({ state: 'detached' });
    await send(tab, 'retitle second Rewritten-second', 'retitled second');
    await second.filter({ hasText: 'Rewritten-second' }).waitFor();
    await expect(second.getByTestId('tool-diff').count()).resolves.toBe(0);
    await expect(second.locator('.tool-head').getAttribute('aria-expanded')).resolves.toBe('false');
    // The first one is untouched by that.
    await first.getByTestId('tool-diff').waitFor();
  });
});
