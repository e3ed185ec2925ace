/**
 * A session in a container on an SSH host, started through the new-session form, against a real OpenSSH
 * server (test/support/ssh-e2e.ts) whose user runs rootless Podman (test/support/remote-podman.ts): the form
 * offers "In a container on it" for the host, names the host's engine, and does not offer the network "only
 * the agent's API" there; the session works in a new worktree of the host's repository (made there, offered by
 * the form for the host); the scenario agent answers from inside the container on the host, its write lands
 * in the worktree on the host and is committed from the worktree bar by the host's git; the header shows the fence with what that engine cannot enforce; Settings →
 * Containers, set to the host, lists the container and stops it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scenarioAgentBundle } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { connectContract } from '../support/contract-client';
import { commitFromFinish, initRepo } from '../support/git-repo';
import { prepareRemotePodman, remotePodmanSkipReason, removeRemoteTestContainers } from '../support/remote-podman';
import { sshSuiteOptions, startE2eSshHost } from '../support/ssh-e2e';
import { activeSession, addAgent, sendPrompt } from '../support/ui';
import { WAIT } from '../support/waits';

const host = await startE2eSshHost('the container on an SSH host end-to-end test', { knownHosts: 'right', skip: remotePodmanSkipReason() });
const image = host ? prepareRemotePodman('node') : '';
const suite = appSuite('container-ssh', undefined, sshSuiteOptions(host));
const folder = host ? host.folder('e2e-container') : '';
// A repository of the host's user: the session works in a new worktree of it, made on the host.
if (host) {
  execFileSync('chown', ['-R', '0:0', folder]);
  initRepo(folder);
  execFileSync('chown', ['-R', `${host.uid}:${host.gid}`, folder]);
}
const worktree = `${folder}.worktrees/sb-boxed`;
const started: string[] = [];

afterAll(() => {
  for (const id of started) removeRemoteTestContainers(id);
  if (host) rmSync(`${folder}.worktrees`, { recursive: true, force: true });
});

describe.skipIf(host === null)('a container session on an SSH host from the form (rootless Podman of the host\'s user)', { timeout: 300_000 }, () => {
  it('starts in a container on the host, shows its fence, and Settings → Containers lists it on that host', async () => {
    const { page } = await suite.open({ empty: true });
    const client = await connectContract(suite.app);
    try {
      expect(await client.call('hosts.connect', { hostId: host!.hostId })).toMatchObject({ ok: true });
    } finally {
      client.close();
    }
    const row = await addAgent(page, { name: 'Inside', command: 'node', args: [scenarioAgentBundle()], env: 'PATH=/usr/local/bin:/usr/bin:/bin' });
    await row.getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-host').selectOption(host!.hostId);
    await dialog.getByTestId('new-session-folder').fill(folder);
    await dialog.getByTestId('new-session-runs-in').selectOption('container');
    await expect.poll(() => dialog.getByTestId('container-engine').innerText(), { timeout: WAIT.server }).toMatch(/^Engine: podman \d/);
    // The API proxy runs on the host, beside the container: the mode is offered there as here.
    expect(await dialog.locator('[data-testid=container-network] option[value=api]').isDisabled()).toBe(false);
    expect(await dialog.locator('[data-testid=container-network] option[value=full]').innerText()).toBe('Full: what the host reaches');
    await dialog.getByTestId('container-source-image').check();
    await dialog.getByTestId('container-image').fill(image);
    await dialog.getByTestId('container-network').selectOption('none');
    await dialog.getByTestId('container-memory').fill('512');
    await dialog.getByTestId('where-new').click({ timeout: WAIT.server });
    await dialog.getByTestId('where-branch').fill('sb/boxed');
    await dialog.getByTestId('new-session-start').click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT.server }).catch(async (e: Error) => {
      throw new Error(`the form stayed open: ${e.message.slice(0, 40)}\n${await dialog.innerText()}`);
    });

    const tab = activeSession(page);
    await tab.waitFor({ timeout: 120_000 });
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    started.push(sessionId);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 120_000 });
    await expect.poll(() => tab.getByTestId('session-host').innerText(), { timeout: WAIT.page }).toBe('A container on sbtest');
    const fence = tab.getByTestId('session-fence');
    await expect.poll(() => fence.innerText(), { timeout: WAIT.server }).toMatch(/^Fenced: no network, 512 MiB, 2 CPUs/);
    // What the host's engine cannot enforce is said (rootless Podman on cgroups v1 sets no limits).
    expect(await fence.getAttribute('title')).toMatch(/^podman .*\(rootless\)\n/);

    await sendPrompt(tab, `terminal {"command":"sh","args":["-c","cat /etc/os-release; echo from inside > ${worktree}/inside.txt"]}`);
    await expect.poll(() => tab.innerText(), { timeout: WAIT.agent }).toContain('Switchboard test image');
    await expect.poll(() => readFileSync(join(worktree, 'inside.txt'), 'utf8'), { timeout: WAIT.server }).toBe('from inside\n');
    // The worktree's bar: its branch, and a commit from Finish made by the host's git.
    const bar = tab.getByTestId('worktree-bar');
    await expect.poll(() => bar.getByTestId('worktree-branch').innerText(), { timeout: WAIT.server }).toBe('sb/boxed');
    await commitFromFinish(bar, tab.getByTestId('worktree-finish'), 'inside.txt', 'Add inside');
    expect(execFileSync('git', ['-c', 'safe.directory=*', 'log', '--format=%s', '-1', 'sb/boxed'], { cwd: folder, encoding: 'utf8' }).trim()).toBe('Add inside');

    // Settings → Containers, set to the host: its engine, and the session's container, running, stopped from here.
    await page.keyboard.press('Control+,');
    const settings = page.locator('.tab-panel:not([hidden]) [data-testid=settings-containers]');
    await settings.getByTestId('containers-host').selectOption(host!.hostId);
    await expect.poll(() => settings.getByTestId('containers-engine').innerText(), { timeout: WAIT.server }).toMatch(/^The host sbtest runs containers with podman \d/);
    const listed = settings.getByTestId('containers-row').filter({ hasText: sessionId.slice(0, 8) });
    await listed.waitFor({ timeout: WAIT.server });
    expect(await listed.getAttribute('data-state')).toBe('running');
    await listed.getByTestId('containers-stop').click();
    await expect.poll(() => listed.getAttribute('data-state'), { timeout: WAIT.server }).toBe('stopped');
  });
});
