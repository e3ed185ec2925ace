import { realpathSync, rmSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { connectContract } from './contract-client';
import { diagnostics, startAppServer, tempDir, type AppServer } from './app-server';
import { launchBrowser, openApp, type OpenedApp } from './browser';

export interface AppSuite {
  readonly app: AppServer;
  /** A project folder (real path) for the suite's sessions. */
  readonly work: string;
  /**
   * A fresh page on the app, its workspace shown; `empty`: the tabs the saved layout brought back are
   * closed; `prepare` runs on the browser context before the page loads.
   */
  open(options?: { empty?: boolean; prepare?(context: BrowserContext): Promise<void> }): Promise<OpenedApp>;
}

/**
 * One app server (browser mode, its own data folder), one Chromium and a project folder for a suite of
 * end-to-end tests; each test's pages are closed after it, and a failed test prints what the server and
 * its agents last said, then removes the agents it added (the suite's next test must not meet the agent
 * of a failed one).
 */
export function appSuite(prefix: string, setup?: (app: AppServer) => Promise<void>): AppSuite {
  let app: AppServer | null = null;
  let browser: Browser | null = null;
  let work = '';
  const contexts: BrowserContext[] = [];
  let client: Awaited<ReturnType<typeof connectContract>> | null = null;
  let agentsBefore = new Set<string>();
  const agentIds = async (): Promise<string[]> =>
    ((await client!.call('agents.list', {})) as { agents: Array<{ id: string }> }).agents.map((a) => a.id);
  beforeAll(async () => {
    work = realpathSync(tempDir(`sb-${prefix}-work-`));
    // Both are kept as soon as they exist, so afterAll stops the server even when the browser fails to launch.
    const [server, chromium] = await Promise.allSettled([startAppServer(), launchBrowser()]);
    if (server.status === 'fulfilled') app = server.value;
    if (chromium.status === 'fulfilled') browser = chromium.value;
    if (server.status === 'rejected') throw server.reason;
    if (chromium.status === 'rejected') throw chromium.reason;
    client = await connectContract(server.value);
    await setup?.(server.value);
  }, 90_000);
  beforeEach(async () => {
    agentsBefore = new Set(await agentIds());
  });
  afterEach(async (ctx) => {
    const failed = ctx.task.result?.state === 'fail';
    if (failed && app) console.error(diagnostics(app));
    for (const c of contexts.splice(0)) await c.close().catch(() => {});
    if (!failed) return;
    for (const id of await agentIds()) if (!agentsBefore.has(id)) await client!.call('agents.remove', { agentId: id });
  });
  afterAll(async () => {
    client?.close();
    await browser?.close();
    await app?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  return {
    get app() {
      if (!app) throw new Error('the app server is not started yet');
      return app;
    },
    get work() {
      return work;
    },
    async open({ empty = false, prepare } = {}) {
      const opened = await openApp(browser!, app!.url, { prepare });
      contexts.push(opened.context);
      const { page } = opened;
      page.setDefaultTimeout(30_000);
      // The first load of a cold server on a busy machine can be slow.
      await page.getByTestId('workspace').waitFor({ timeout: 60_000 });
      if (empty) {
        const close = page.locator('[role=tab] .tab-close');
        while ((await close.count()) > 0) await close.first().click();
      }
      return opened;
    },
  };
}
