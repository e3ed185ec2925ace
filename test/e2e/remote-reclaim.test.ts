import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { sshSuiteOptions, startE2eSshHost } from '../support/ssh-e2e';
import { activeSession, addAgent, agentRow, sendPrompt } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 36 §2, end to end in Chromium against a real OpenSSH server (test/support/sshd.ts): Switchboard is
 * killed (SIGKILL) while an agent on the host streams a long reply; the agent finishes on the host while no
 * Switchboard runs; Switchboard started again on the same data folder reopens the session, and the reply is
 * whole: every word the agent wrote, once and in order.
 */

const host = await startE2eSshHost('the reclaim-after-restart end-to-end test');
const folder = host ? host.folder('e2e-reclaim') : '';
const bin = host ? host.folder('e2e-reclaim-bin') : '';
const WORDS = 300;
const done = join(bin, 'reply-done');

/**
 * An ACP agent that keeps its sessions in a file (as real agents do: written once a turn ends) and replays them
 * on session/load; "long" is answered word by word, and the agent says on its disk when the reply is all written.
 */
const AGENT_JS = `const fs = require('node:fs');
const store = ${JSON.stringify(join(bin, 'sessions.json'))};
const read = () => { try { return JSON.parse(fs.readFileSync(store, 'utf8')); } catch { return {}; } };
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const update = (sessionId, update) => send({ method: 'session/update', params: { sessionId, update } });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [], agentInfo: { name: 'storyteller', version: '1.0.0' } } });
  else if (msg.method === 'session/new') send({ id: msg.id, result: { sessionId: 'story-1' } });
  else if (msg.method === 'session/load') {
    for (const t of read()[msg.params.sessionId] ?? []) {
      update(msg.params.sessionId, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: t.user } });
      update(msg.params.sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t.agent } });
    }
    send({ id: msg.id, result: {} });
  } else if (msg.method === 'session/prompt') {
    const sid = msg.params.sessionId;
    const user = msg.params.prompt.map((b) => b.text ?? '').join('');
    let i = 0;
    let said = '';
    const next = () => {
      if (i === ${WORDS}) {
        const all = read();
        all[sid] = [...(all[sid] ?? []), { user, agent: said }];
        fs.writeFileSync(store, JSON.stringify(all));
        send({ id: msg.id, result: { stopReason: 'end_turn' } });
        fs.writeFileSync(${JSON.stringify(done)}, 'done');
        return;
      }
      const word = (i === 0 ? '' : ' ') + 'w' + i;
      said += word;
      update(sid, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: word } });
      i++;
      setTimeout(next, 25);
    };
    next();
  } else if (msg.id !== undefined && msg.method) send({ id: msg.id, error: { code: -32601, message: 'not here' } });
});
`;

if (host) host.write(join(bin, 'agent.js'), AGENT_JS);

const suite = appSuite('remote-reclaim', undefined, sshSuiteOptions(host));

describe.skipIf(host === null)('an SSH session whose Switchboard was killed mid-reply', { timeout: 300_000 }, () => {
  it('shows, once reopened after the restart, every word the agent wrote meanwhile, once and in order', async () => {
    let { page } = await suite.open({ empty: true });
    const client = await connectContract(suite.app);
    try {
      expect(await client.call('hosts.connect', { hostId: host!.hostId })).toMatchObject({ ok: true });
    } finally {
      client.close();
    }
    await addAgent(page, { name: 'Storyteller', command: 'node', args: [join(bin, 'agent.js')] });
    await agentRow(page, 'Storyteller').getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-host').selectOption(host!.hostId);
    await dialog.getByTestId('new-session-folder').fill(folder);
    await dialog.getByTestId('new-session-start').click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT.server });
    let tab = activeSession(page);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });

    await sendPrompt(tab, 'tell a long story');
    await tab.getByTestId('agent-message').last().filter({ hasText: 'w20 ' }).waitFor({ timeout: WAIT.agent });
    // Killed mid-reply: no goodbye to the host.
    const proc = suite.app.proc;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
    // The agent goes on without it.
    await expect.poll(() => existsSync(done), { timeout: WAIT.agent }).toBe(true);

    await suite.restart();
    ({ page } = await suite.open({ empty: true }));
    await page.getByTestId('history-open-tab').click();
    const history = page.locator('.tab-panel:not([hidden]) [data-testid=history-tab]');
    const row = history.getByTestId('history-row').first();
    await row.waitFor({ timeout: WAIT.server });
    await row.getByTestId('history-reopen').click();
    tab = activeSession(page);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    const expected = Array.from({ length: WORDS }, (_, i) => `w${i}`);
    const words = async (): Promise<string[]> => (await tab.getByTestId('agent-message').allInnerTexts()).join(' ').match(/\bw\d+\b/g) ?? [];
    await expect.poll(words, { timeout: WAIT.server }).toEqual(expected);
    expect(await tab.getByTestId('user-message').filter({ hasText: 'tell a long story' }).count()).toBe(1);
    // The mark written at the restart, for a turn the host may have carried on, says so (the rest follows it).
    await expect.poll(() => tab.getByText(/Cut short: Switchboard stopped/).allInnerTexts(), { timeout: WAIT.server }).toEqual([expect.stringContaining('The agent may have gone on on its host')]);
  });
});
