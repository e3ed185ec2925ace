/**
 * A session in a container started through the new-session form, from a repository with a devcontainer.json,
 * on a real Podman: the form shows what the configuration will run before the first start, the session's
 * agent (the scenario agent, bundled into one file the container gets a copy of) answers from inside, and the
 * header shows the fence.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scenarioAgentBundleAt } from '../fixtures/scenario-agent/launch';
import { appSuite } from '../support/app-suite';
import { podmanEnv, podmanSkipReason, removeTestContainers, testImage } from '../support/podman';
import { activeSession, addAgent, sendPrompt } from '../support/ui';
import { WAIT } from '../support/waits';

const skip = podmanSkipReason();
const bundleDir = mkdtempSync(join(tmpdir(), 'sb-e2e-agent-'));
const bundle = join(bundleDir, 'scenario-agent.mjs');
const started: string[] = [];

const suite = appSuite('container', undefined, {
  env: () => (skip === null ? podmanEnv() : {}),
  seed: async (_dataDir, work) => {
    if (skip !== null) return;
    scenarioAgentBundleAt(bundle);
    mkdirSync(join(work, '.devcontainer'), { recursive: true });
    writeFileSync(join(work, '.devcontainer', 'devcontainer.json'), `{\n  // the project's own container\n  "image": "${testImage('node')}",\n  "postCreateCommand": "echo made inside > made.txt",\n}\n`);
  },
});

afterAll(() => {
  for (const id of started) removeTestContainers(id);
  rmSync(bundleDir, { recursive: true, force: true });
});

describe.skipIf(skip !== null)('a container session from the form (real Podman)', { timeout: 240_000 }, () => {
  it("starts in the repository's dev container, shown before the start, and shows its fence", async () => {
    const { page } = await suite.open({ empty: true });
    const row = await addAgent(page, { name: 'Inside', command: 'node', args: [bundle], env: 'PATH=/usr/local/bin:/usr/bin:/bin' });
    await row.getByTestId('agent-new-session').click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByTestId('new-session-folder').fill(suite.work);
    await dialog.getByTestId('new-session-runs-in').selectOption('container');
    const config = dialog.getByTestId('container-repo-config');
    await config.waitFor({ timeout: WAIT.server });
    await expect.poll(() => config.innerText(), { timeout: WAIT.page }).toContain('switchboard-test:node');
    expect(await dialog.getByTestId('container-commands').innerText()).toContain('postCreateCommand: echo made inside > made.txt');
    await expect.poll(() => dialog.getByTestId('container-engine').innerText(), { timeout: WAIT.server }).toMatch(/^Engine: podman \d/);
    await dialog.getByTestId('container-network').selectOption('none');
    await dialog.getByTestId('new-session-start').click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT.server }).catch(async (e: Error) => {
      throw new Error(`the form stayed open: ${e.message.slice(0, 40)}\n${await dialog.innerText()}`);
    });

    const tab = activeSession(page);
    await tab.waitFor({ timeout: 120_000 });
    const sessionId = (await tab.getAttribute('data-session-id'))!;
    started.push(sessionId);
    await tab.and(page.locator('[data-status=idle]')).waitFor({ timeout: 120_000 });
    await expect.poll(() => tab.getByTestId('session-host').innerText(), { timeout: WAIT.page }).toBe('A container on this machine');
    const fence = tab.getByTestId('session-fence');
    await expect.poll(() => fence.innerText(), { timeout: WAIT.server }).toMatch(/^Fenced: no network, 2048 MiB, 2 CPUs/);

    await sendPrompt(tab, 'terminal {"command":"sh","args":["-c","cat /etc/os-release; cat made.txt"]}');
    await expect.poll(() => tab.innerText(), { timeout: WAIT.agent }).toContain('Switchboard test image');
    expect(await tab.innerText()).toContain('made inside');

    // Settings → Containers names the engine and lists the session's container, running, with Stop and Remove.
    await page.keyboard.press('Control+,');
    const settings = page.locator('.tab-panel:not([hidden]) [data-testid=settings-containers]');
    await expect.poll(() => settings.getByTestId('containers-engine').innerText(), { timeout: WAIT.server }).toMatch(/^This machine runs containers with podman \d/);
    const listed = settings.getByTestId('containers-row').filter({ hasText: sessionId.slice(0, 8) });
    await listed.waitFor({ timeout: WAIT.server });
    expect(await listed.getAttribute('data-state')).toBe('running');
    await listed.getByTestId('containers-stop').click();
    await expect.poll(() => listed.getAttribute('data-state'), { timeout: WAIT.server }).toBe('stopped');
  });
});
