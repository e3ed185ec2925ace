import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm/index';
import { claudeCodeLaunch, isAgentInstalled, placeAgentOnHost, requireOrSkipAgent } from '../support/real-agents/index';
import { sshSuiteOptions, startE2eSshHost } from '../support/ssh-e2e';
import { addAgent, agentRow, sendPrompt } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 27 end to end in Chromium: a real agent (the registry's Claude Code, placed in the remote user's home)
 * in a session on a real OpenSSH server's host (test/support/sshd.ts), its model the fake LLM on 127.0.0.1.
 * An `@`-mention completes a file that only the host has; the agent's write asks permission in a card answered
 * in the window and lands on the host as the remote user's; the connection is dropped (its ControlMaster
 * killed) while the agent streams its reply: the session says "Connection lost, reconnecting…", comes back,
 * and the reply is whole, every word once and in order.
 */

const host = await startE2eSshHost('the remote agent end-to-end test', {
  skip: isAgentInstalled('claude-code') || requireOrSkipAgent('claude-code') ? null : 'Claude Code is not installed',
});
const sshd = host?.sshd ?? null;
const llm: FakeLlm | null = sshd ? await startFakeLlm() : null;
const HOST = host?.hostId ?? '';
const tag = randomBytes(4).toString('hex');
const hostOnly = `only-on-host-${tag}.md`;
const folder = host ? host.folder('e2e-agent') : '';
const agentHome = host ? host.folder('e2e-agent-home') : '';
const uid = host?.uid ?? -1;
let entry = '';
if (host) {
  for (const d of ['.config', '.cache', '.local', '.local/share', '.local/state']) host.mkdir(join(agentHome, d));
  host.write(join(folder, hostOnly), '# only the host has this\n');
  entry = placeAgentOnHost('claude-code', { home: host.sshd.home, uid, gid: host.gid });
}

const suite = appSuite('remote-agent', undefined, sshSuiteOptions(host));

afterAll(async () => {
  await llm?.close();
});

/** The ControlMaster of the test's ssh config (`ssh -f` forks it away from the app: found by its command line). */
function controlMasters(configFile: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.includes(configFile) && argv.includes('ControlMaster=yes')) found.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return found;
}

describe.skipIf(sshd === null)('a real agent on an SSH host, through the UI', { timeout: 300_000 }, () => {
  it('mentions a host file, answers its permission card, and keeps its reply whole across a dropped connection', async () => {
    const { page } = await suite.open({ empty: true });
    // The host is connected through the contract (Settings → Hosts has its own test); the agent is added with
    // the sidebar's form: `node` and the script as the remote user sees them, its env as NAME=value lines.
    const client = await connectContract(suite.app);
    try {
      expect(await client.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
    } finally {
      client.close();
    }
    const { env } = claudeCodeLaunch({ llmUrl: llm!.url, home: agentHome });
    delete env['IS_SANDBOX']; // for root only; the agent runs as the remote user
    await addAgent(page, { name: 'Claude on the host', command: 'node', args: [entry], env: Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n') });

    await agentRow(page, 'Claude on the host').getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-host').selectOption(HOST);
    await dialog.getByTestId('new-session-folder').fill(folder);
    await dialog.getByTestId('new-session-start').click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT.server });
    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    // A real agent's cold start on a loaded machine, over ssh.
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 120_000 });
    expect(await tab.getByTestId('session-host').innerText()).toBe('sbtest');

    // ── @ lists the host's files: one that only the host has.
    expect(existsSync(join(suite.work, hostOnly))).toBe(false);
    const input = tab.getByTestId('prompt-input');
    await input.fill('make hello about ');
    await input.press('End');
    await input.pressSequentially(`@only-on-host-${tag.slice(0, 4)}`);
    const picker = tab.getByTestId('mention-picker');
    await picker.getByTestId('picker-item').filter({ hasText: hostOnly }).waitFor({ timeout: WAIT.server });
    await input.press('Enter');
    await picker.waitFor({ state: 'detached', timeout: WAIT.page });
    await tab.getByTestId('mention-chip').filter({ hasText: hostOnly }).waitFor({ timeout: WAIT.page });

    // ── The agent's write: a permission card, answered here; the file lands on the host, the remote user's.
    const file = join(folder, 'hello.txt');
    llm!.when('make hello', [{ kind: 'write', path: file, content: 'Hi from the host\n' }]);
    await input.press('Enter');
    await expect.poll(() => input.inputValue(), { timeout: WAIT.page }).toBe('');
    await tab.getByTestId('user-message').last().locator('.mention-chip', { hasText: hostOnly }).waitFor({ timeout: WAIT.page });
    const card = tab.getByTestId('permission-card').last();
    await card.waitFor({ timeout: 120_000 });
    expect(existsSync(file)).toBe(false);
    await card.locator('[data-testid=permission-option][data-kind=allow_once]').click();
    await card.waitFor({ state: 'detached', timeout: WAIT.server });
    await expect.poll(() => (existsSync(file) ? readFileSync(file, 'utf8') : null), { timeout: WAIT.agent }).toBe('Hi from the host\n');
    expect(statSync(file).uid).toBe(uid);
    await tab.getByTestId('agent-message').filter({ hasText: 'all 1 step(s) done' }).waitFor({ timeout: WAIT.agent });
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });

    // ── A drop mid-reply: the ControlMaster killed while the agent streams.
    const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
    llm!.when('tell a long story', [{ kind: 'slow', text: `${words} the-end`, chunks: 81, chunkDelayMs: 100 }]);
    // The transient banner is caught by an observer (it may show for less than a poll's interval).
    await page.evaluate(() => {
      const w = window as unknown as { sawReconnecting?: boolean };
      w.sawReconnecting = false;
      new MutationObserver(() => {
        const el = document.querySelector('.tab-panel:not([hidden]) [data-testid=session-host-state]');
        if (el?.textContent?.includes('Connection lost, reconnecting')) w.sawReconnecting = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await sendPrompt(tab, 'tell a long story');
    const reply = tab.getByTestId('agent-message').last();
    await reply.filter({ hasText: 'w5 ' }).waitFor({ timeout: 120_000 });
    const masters = controlMasters(sshd!.configFile);
    expect(masters.length).toBeGreaterThan(0);
    for (const pid of masters) process.kill(pid, 'SIGKILL');
    await expect.poll(() => page.evaluate(() => (window as unknown as { sawReconnecting?: boolean }).sawReconnecting), { timeout: WAIT.agent }).toBe(true);
    await page.locator(`[data-testid=sidebar-host][data-host-id="${HOST}"][data-state=connected]`).waitFor({ timeout: 60_000 });
    await tab.getByTestId('session-host-state').waitFor({ state: 'detached', timeout: WAIT.server });
    await reply.filter({ hasText: 'the-end' }).waitFor({ timeout: 60_000 });
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });
    // Whole: every word once, in order.
    const text = (await reply.innerText()).replace(/\s+/g, ' ').trim();
    expect(text).toContain(`${words} the-end`);
    expect(text.split('w40 ').length).toBe(2);
  });
});
