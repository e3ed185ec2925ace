import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { sshdSkipReason, startSshd } from '../support/sshd';
import { agentRow, agentsSidebar, sendPrompt } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 27, an agent defined per host, in Chromium against a real OpenSSH server (test/support/sshd.ts): the
 * agent form sets a command for one host (the program here is not on the host); a session on that host runs
 * it, and the form shows it again when the agent is edited.
 */

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the agent-per-host end-to-end test: ${skip}`);
const sshd = skip ? null : await startSshd();
const HOST = 'ssh:sbtest';
const tag = randomBytes(4).toString('hex');
const folder = sshd ? join(sshd.home, `e2e-per-host-${tag}`) : '';
const bin = sshd ? join(sshd.home, `e2e-per-host-bin-${tag}`) : '';

/** An ACP agent that answers a prompt with where and with what it runs. */
const AGENT_JS = `const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'per-host', version: '1.0.0' } } });
  else if (msg.method === 'session/new') send({ id: msg.id, result: { sessionId: 'per-host-1' } });
  else if (msg.method === 'session/prompt') {
    const text = 'on the host as ' + process.getuid() + ' with ' + process.argv.slice(2).join(',') + ' and ' + process.env.WHERE;
    send({ method: 'session/update', params: { sessionId: msg.params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
    send({ id: msg.id, result: { stopReason: 'end_turn' } });
  } else if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: 'not here' } });
});
`;

let uid = -1;
if (sshd) {
  uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', sshd.user], { encoding: 'utf8' }).stdout.trim());
  for (const dir of [folder, bin]) {
    mkdirSync(dir);
    chownSync(dir, uid, gid);
  }
  writeFileSync(join(bin, 'agent.js'), AGENT_JS);
}

const suite = appSuite('agent-on-host', undefined, { env: (): Record<string, string> => (sshd ? { SWITCHBOARD_SSH_CONFIG: sshd.configFile } : {}) });

afterAll(async () => {
  await sshd?.stop();
  for (const dir of [folder, bin]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(sshd === null)('an agent with its own command on an SSH host, through the UI', { timeout: 180_000 }, () => {
  it('is set in the agent form, runs on that host, and shows again when edited', async () => {
    const { page } = await suite.open({ empty: true });
    const client = await connectContract(suite.app);
    try {
      expect(await client.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
    } finally {
      client.close();
    }
    await agentsSidebar(page).getByTestId('add-custom-agent').click();
    const form = page.getByTestId('agent-form');
    await form.getByTestId('agent-name').fill('Per host');
    await form.getByTestId('agent-command').fill(`sb-only-here-${tag}`);
    await form.getByTestId('agent-env').fill('WHERE=its own env');
    await form.getByTestId('agent-host-add').selectOption(HOST);
    const row = form.locator(`[data-testid=agent-host-command][data-host="${HOST}"]`);
    await row.getByTestId('agent-host-command-program').fill('node');
    await row.getByTestId('agent-host-command-args').fill(`${join(bin, 'agent.js')}\n--on-sbtest`);
    await row.getByTestId('agent-host-command-env').fill('WHERE=the host entry');
    await form.getByTestId('agent-save').click();
    await form.waitFor({ state: 'detached', timeout: WAIT.server });

    await agentRow(page, 'Per host').getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-host').selectOption(HOST);
    await dialog.getByTestId('new-session-folder').fill(folder);
    await dialog.getByTestId('new-session-start').click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT.server });
    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });
    await sendPrompt(tab, 'where are you');
    await tab.getByTestId('agent-message').filter({ hasText: `on the host as ${uid} with --on-sbtest and the host entry` }).waitFor({ timeout: WAIT.agent });

    // Edited, the form shows the host's entry as saved.
    const agent = agentRow(page, 'Per host');
    await agent.locator('.agent-name').click();
    await agent.getByTestId('agent-details').waitFor({ timeout: WAIT.page });
    await agent.getByTestId('agent-edit').click();
    const edit = page.getByTestId('agent-form');
    const saved = edit.locator(`[data-testid=agent-host-command][data-host="${HOST}"]`);
    expect(await saved.getByTestId('agent-host-command-program').inputValue()).toBe('node');
    expect(await saved.getByTestId('agent-host-command-env').inputValue()).toBe('WHERE=the host entry');
  });
});
