import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { addAgent, startSessionFromSidebar } from '../support/ui';

/**
 * Monaco is fetched when the first diff is shown, not with the page: until it has arrived, the diff's place
 * says it is loading; then the diff shows, and the notice is gone.
 */

// Each prompt: a completed edit with a diff of a new file, then a reply.
const AGENT = String.raw`
import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let cwd = '/';
createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentInfo: { name: 'diff-agent', version: '0.0.1' }, authMethods: [], agentCapabilities: {} } });
  } else if (m.method === 'session/new') {
    cwd = m.params.cwd;
    send({ jsonrpc: '2.0', id: m.id, result: { sessionId: 'diff-' + Date.now() } });
  } else if (m.method === 'session/prompt') {
    const sessionId = m.params.sessionId;
    const update = (u) => send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });
    update({ sessionUpdate: 'tool_call', toolCallId: 'w1', title: 'Write notes', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: cwd + '/notes.txt', oldText: null, newText: 'lazy-monaco-content\n' }] });
    update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'wrote notes' } });
    send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn' } });
  } else if (m.id !== undefined && m.method) {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

let agentPath = '';
const suite = appSuite('diff-loading', async () => {
  agentPath = join(suite.work, '.diff-agent.mjs');
  writeFileSync(agentPath, AGENT);
});

describe('a diff while Monaco loads', { timeout: 90_000 }, () => {
  it('says it is loading until Monaco has arrived, then shows the diff', async () => {
    // Monaco's code is held back until the test lets it through.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let asked = false;
    const { page } = await suite.open({
      prepare: async (context) => {
        await context.route(/\/assets\/editor\.api-[^/]*\.js$/, async (route) => {
          asked = true;
          await released;
          await route.continue();
        });
      },
    });
    page.setDefaultTimeout(25_000);

    const row = await addAgent(page, { name: 'Diff agent', command: process.execPath, args: [agentPath] });
    const tab = await startSessionFromSidebar(page, row, suite.work);
    expect(asked).toBe(false);

    const input = tab.getByTestId('prompt-input');
    await input.fill('write');
    await input.press('Enter');
    await tab.getByTestId('agent-message').filter({ hasText: 'wrote notes' }).waitFor();
    const diff = tab.getByTestId('tool-call').filter({ hasText: 'Write notes' }).getByTestId('monaco-diff');
    await diff.getByRole('status').filter({ hasText: 'Loading the diff…' }).waitFor();
    await expect.poll(() => asked, { timeout: 10_000 }).toBe(true);
    await expect(diff.getAttribute('data-ready')).resolves.toBe('false');

    release();
    await diff.and(page.locator('[data-ready=true]')).locator('.view-lines', { hasText: 'lazy-monaco-content' }).waitFor();
    await expect(diff.getByRole('status').count()).resolves.toBe(0);
  });
});
