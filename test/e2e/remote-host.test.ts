import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { sshSuiteOptions, startE2eSshHost } from '../support/ssh-e2e';
import { addScenarioAgent, agentRow, sendPrompt } from '../support/ui';
import { WAIT } from '../support/waits';

/**
 * Issue 27 end to end in Chromium, against a real OpenSSH server on 127.0.0.1 (test/support/sshd.ts) whose
 * user has its own home: Settings → Hosts lists the alias, Connect shows the unknown key's fingerprint and
 * connects once it is accepted, the sidebar shows the host connected; a session of the scenario agent
 * started on the host writes a file there (the remote user's, in the remote folder) and runs a terminal
 * there; after a restart the session reopens on its host.
 */

const host = await startE2eSshHost('the remote host end-to-end test', { knownHosts: 'empty' });
const sshd = host?.sshd ?? null;
const HOST = host?.hostId ?? '';
const folder = host ? host.folder('e2e') : '';
const uid = host?.uid ?? -1;

const suite = appSuite('remote', undefined, sshSuiteOptions(host));

describe.skipIf(sshd === null)('a session on an SSH host', { timeout: 240_000 }, () => {
  it('adds the host by accepting its key, runs an agent and a terminal there, and reopens the session after a restart', async () => {
    let page = (await suite.open({ empty: true })).page;

    // ── Settings → Hosts: the alias of the ssh config; Connect meets an unknown key, shown by its fingerprint.
    await page.keyboard.press('Control+,');
    const row = page.locator(`.tab-panel:not([hidden]) [data-testid=host-row][data-host-id="${HOST}"]`);
    await row.waitFor({ timeout: WAIT.server });
    await row.getByTestId('host-connect').click();
    const failure = row.locator('[data-testid=host-failure][data-kind=host-key-unknown]');
    await failure.waitFor({ timeout: WAIT.agent });
    const expected = spawnSync('ssh-keygen', ['-lf', sshd!.hostKeyPub], { encoding: 'utf8' }).stdout.split(' ')[1]!;
    expect(await failure.getByTestId('host-fingerprint').innerText()).toBe(expected);
    expect(readFileSync(sshd!.knownHostsFile, 'utf8').trim()).toBe('');
    await failure.getByTestId('host-key-accept').click();
    await row.and(page.locator('[data-state=connected]')).waitFor({ timeout: WAIT.agent });
    expect(readFileSync(sshd!.knownHostsFile, 'utf8')).toContain(readFileSync(sshd!.hostKeyPub, 'utf8').split(' ')[1]!);
    await page.locator(`[data-testid=sidebar-host][data-host-id="${HOST}"][data-state=connected]`).waitFor({ timeout: WAIT.page });

    // ── A session on the host, in a folder of the remote user.
    await addScenarioAgent(page, 'Remote Agent', `SCENARIO_CAPS=loadSession\nSCENARIO_STORE=${join(folder, '.agent-sessions.json')}`);
    await agentRow(page, 'Remote Agent').getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-host').selectOption(HOST);
    await dialog.getByTestId('new-session-folder').fill(`${folder}-missing`);
    await dialog.getByTestId('new-session-start').click();
    // A folder the host does not have is refused there, before any session starts.
    await expect.poll(() => dialog.getByTestId('new-session-folder-missing').innerText(), { timeout: WAIT.server }).toContain('no such folder');
    await dialog.getByTestId('new-session-folder').fill(folder);
    await dialog.getByTestId('new-session-start').click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT.server });
    const tab = page.locator('.tab-panel:not([hidden]) [data-testid=session-tab]');
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    expect(await tab.getByTestId('session-host').innerText()).toBe('sbtest');

    // The agent's write lands on the host, as the remote user; nothing is written in the local project folder.
    const file = join(folder, 'from-ui.txt');
    await sendPrompt(tab, `write ${file} written from the UI`);
    await expect.poll(() => existsSync(file) && readFileSync(file, 'utf8'), { timeout: WAIT.agent }).toBe('written from the UI');
    expect(statSync(file).uid).toBe(uid);
    expect(existsSync(join(suite.work, 'from-ui.txt'))).toBe(false);

    // A terminal the agent runs is on the host.
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });
    await sendPrompt(tab, 'terminal {"command":"sh","args":["-c","echo user=$(id -un) dir=$(pwd)"]}');
    await tab.getByTestId('agent-message').filter({ hasText: `user=${sshd!.user} dir=${folder}` }).waitFor({ timeout: WAIT.agent });
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: WAIT.agent });

    // The layout holding the tab is saved, then the app restarts.
    const client = await connectContract(suite.app);
    await expect
      .poll(async () => JSON.stringify(((await client.call('settings.get', { key: 'workspace.layout' })) as { entry: { value: unknown } }).entry.value), { timeout: WAIT.server })
      .toContain(sessionId);
    client.close();

    // ── Restart: the tab comes back as its transcript; reopening it reconnects the host and the agent there.
    await suite.restart();
    page = (await suite.open()).page;
    const transcript = page.locator(`.tab-panel:not([hidden]) [data-testid=transcript-tab][data-session-id="${sessionId}"]`);
    await transcript.waitFor({ timeout: WAIT.server });
    await transcript.locator('[data-testid=transcript-reopen-plan][data-mode=load]').waitFor({ timeout: 60_000 });
    await transcript.getByTestId('transcript-restore').click();
    const live = page.locator(`.tab-panel:not([hidden]) [data-testid=session-tab][data-session-id="${sessionId}"]`);
    await live.and(page.locator('[data-status=idle]')).waitFor({ timeout: 60_000 });
    await sendPrompt(live, 'whereami');
    await live.getByTestId('agent-message').filter({ hasText: `"cwd":"${folder}"` }).waitFor({ timeout: WAIT.agent });
    await page.locator(`[data-testid=sidebar-host][data-host-id="${HOST}"][data-state=connected]`).waitFor({ timeout: WAIT.page });
  });
});
