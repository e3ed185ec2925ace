import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, lchownSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { appSuite } from '../support/app-suite';
import { tempDir } from '../support/app-server';
import { connectContract } from '../support/contract-client';
import { sshdSkipReason, startSshd } from '../support/sshd';

/**
 * Issue 29 on a host (issue 27) in Chromium: a Claude Code store in the HOME of a real OpenSSH server's user
 * (test/support/sshd.ts) is listed in History → Import beside this machine's, with its host, once the host
 * connects (the open panel says it waits for it until then); imported, its session is in History saying which
 * host it is on.
 */

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the remote import end-to-end test: ${skip}`);
const sshd = skip ? null : await startSshd();
const HOST = 'ssh:sbtest';
const FIXTURE = join(__dirname, '../fixtures/agent-histories/claude-code-0.16.0/.claude/projects');
const project = sshd ? join(sshd.home, '.claude', 'projects', `-sbimport-e2e-${randomBytes(4).toString('hex')}`) : '';
if (sshd) {
  const uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
  for (const dir of [join(sshd.home, '.claude'), join(sshd.home, '.claude', 'projects')]) {
    if (!existsSync(dir)) mkdirSync(dir, { mode: 0o755 });
    lchownSync(dir, uid, uid);
  }
  cpSync(join(FIXTURE, readdirSync(FIXTURE)[0]!), project, { recursive: true });
  spawnSync('chown', ['-R', `${uid}:${uid}`, project]);
}
// This machine's user has no stores of their own: the host's is the one to import.
const localHome = tempDir('sb-remote-import-home-');

const suite = appSuite('remote-import', undefined, { env: (): Record<string, string> => (sshd ? { SWITCHBOARD_SSH_CONFIG: sshd.configFile, HOME: localHome } : {}) });
suite.afterStop(() => rmSync(localHome, { recursive: true, force: true }));

afterAll(async () => {
  await sshd?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

const visible = (page: Page, testId: string): Locator => page.locator(`.tab-panel:not([hidden]) [data-testid=${testId}]`);

describe.skipIf(sshd === null)('History → Import of a host’s agent store, through the UI', { timeout: 180_000 }, () => {
  it('lists the host’s Claude Code store with its host, imports it, and History says which host the session is on', async () => {
    const { page } = await suite.open({ empty: true });
    await page.getByTestId('history-import-open').click();
    const history = visible(page, 'history-tab');
    // Before the host connects, the panel says its stores wait for it.
    await expect.poll(() => history.getByTestId('history-import-offline').innerText(), { timeout: 30_000 }).toMatch(/Not connected: .*sbtest/);
    // Connected (here through the contract; Settings → Hosts has its own test), the open panel lists its stores.
    const client = await connectContract(suite.app);
    try {
      expect(await client.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
    } finally {
      client.close();
    }
    const onHost = history.locator(`[data-testid=history-import-source][data-source=claude-code][data-host="${HOST}"]`);
    await expect.poll(() => onHost.getByTestId('history-import-host').innerText(), { timeout: 30_000 }).toBe('sbtest');
    await expect.poll(async () => Number(await onHost.getByTestId('history-import-sessions').innerText()), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    // This machine's row is there too, with nothing found.
    const here = history.locator('[data-testid=history-import-source][data-source=claude-code][data-host=local]');
    await expect.poll(() => here.getByTestId('history-import-sessions').innerText(), { timeout: 15_000 }).toBe('not found');

    await expect.poll(() => onHost.getByRole('checkbox', { name: 'Import Claude Code (sbtest)' }).isChecked(), { timeout: 15_000 }).toBe(true);
    await history.getByTestId('history-import-start').click();
    await expect.poll(() => history.getByTestId('history-import-result').innerText(), { timeout: 60_000 }).toMatch(/sessions? imported/);
    await expect.poll(async () => Number(await onHost.getByTestId('history-import-imported').innerText()), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);

    // In History: the session imported from the host's fixture, on that host.
    await history.getByTestId('history-import-close').click();
    const row = history.locator('[data-testid=history-row]', { hasText: 'Please write the notes' }).first();
    await expect.poll(() => row.getByTestId('history-row-host').innerText(), { timeout: 30_000 }).toBe('sbtest');
  });
});
