import { realpathSync, rmSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { connectContract } from './contract-client';
import { diagnostics, startAppServer, tempDir, type AppServer } from './app-server';
import { launchBrowser, openApp, type OpenedApp } from './browser';

export interface AppSuite {
  readonly app: AppServer;
  readonly browser: Browser;
  /** A project folder (real path) for the suite's sessions. */
  readonly work: string;
  /** The server's data folder (it outlives a restart; with `serverPerTest`, the current test's). */
  readonly dataDir: string;
  /**
   * A fresh page on the app, its workspace shown; `empty`: the tabs the saved layout brought back are
   * closed; `prepare` runs on the browser context before the page loads.
   */
  open(options?: { empty?: boolean; colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number }; prepare?(context: BrowserContext): Promise<void> }): Promise<OpenedApp>;
  /** The app quits and starts again on the same data folder (the suite's pages are closed first). */
  restart(): Promise<AppServer>;
  /**
   * Runs once the server has stopped at the end of the suite: for what the server's agents may still write
   * to (an agent's HOME), which must not be removed under a running agent.
   */
  afterStop(fn: () => void | Promise<void>): void;
}

export interface AppSuiteOptions {
  /** Fills the data folder before the server first starts (a seeded history, a store of an older version). */
  seed?(dataDir: string, work: string): void | Promise<void>;
  /** More environment for the server. */
  env?(work: string): Record<string, string>;
  /** A server with its own data folder for each test (the suite's browser is shared). */
  serverPerTest?: boolean;
}

/**
 * One app server (browser mode, its own data folder), one Chromium and a project folder for a suite of
 * end-to-end tests; each test's pages are closed after it, and a failed test prints what the server and
 * its agents last said, then removes the agents it added (the suite's next test must not meet the agent
 * of a failed one). `setup` runs once the server is up (and again after each `serverPerTest` start).
 */
export function appSuite(prefix: string, setup?: (app: AppServer) => Promise<void>, options: AppSuiteOptions = {}): AppSuite {
  let app: AppServer | null = null;
  let browser: Browser | null = null;
  let work = '';
  let dataDir = '';
  const contexts: BrowserContext[] = [];
  const afterStop: Array<() => void | Promise<void>> = [];
  let client: Awaited<ReturnType<typeof connectContract>> | null = null;
  let agentsBefore = new Set<string>();
  const agentIds = async (): Promise<string[]> =>
    ((await client!.call('agents.list', {})) as { agents: Array<{ id: string }> }).agents.map((a) => a.id);

  const startServer = async (): Promise<AppServer> => {
    const server = await startAppServer({ dataDir, ...(options.env ? { env: options.env(work) } : {}) });
    app = server;
    client = await connectContract(server);
    return server;
  };
  const stopServer = async (): Promise<void> => {
    client?.close();
    client = null;
    await app?.stop();
    app = null;
  };
  const freshData = async (): Promise<void> => {
    dataDir = tempDir(`sb-${prefix}-data-`);
    await options.seed?.(dataDir, work);
  };
  const closePages = async (): Promise<void> => {
    for (const c of contexts.splice(0)) await c.close().catch(() => {});
  };

  beforeAll(async () => {
    work = realpathSync(tempDir(`sb-${prefix}-work-`));
    if (!options.serverPerTest) await freshData();
    // Both are kept as soon as they exist, so afterAll stops the server even when the browser fails to launch.
    const [server, chromium] = await Promise.allSettled([options.serverPerTest ? Promise.resolve(null) : startServer(), launchBrowser()]);
    if (chromium.status === 'fulfilled') browser = chromium.value;
    if (server.status === 'rejected') throw server.reason;
    if (chromium.status === 'rejected') throw chromium.reason;
    if (app) await setup?.(app);
  }, 90_000);
  beforeEach(async () => {
    if (options.serverPerTest) {
      await freshData();
      const server = await startServer();
      await setup?.(server);
    }
    // A store that cannot be opened has no agents to list (a suite about that store).
    agentsBefore = new Set(await agentIds().catch(() => []));
  }, 90_000);
  afterEach(async (ctx) => {
    const failed = ctx.task.result?.state === 'fail';
    if (failed && app) console.error(diagnostics(app));
    await closePages();
    if (options.serverPerTest) {
      await stopServer();
      rmSync(dataDir, { recursive: true, force: true });
      return;
    }
    if (!failed || !client) return;
    for (const id of await agentIds()) if (!agentsBefore.has(id)) await client.call('agents.remove', { agentId: id });
  }, 60_000);
  afterAll(async () => {
    await stopServer();
    await browser?.close();
    for (const fn of afterStop.splice(0)) await fn();
    for (const dir of [work, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get app() {
      if (!app) throw new Error('the app server is not started yet');
      return app;
    },
    get browser() {
      if (!browser) throw new Error('the browser is not launched yet');
      return browser;
    },
    get work() {
      return work;
    },
    get dataDir() {
      return dataDir;
    },
    async open({ empty = false, colorScheme, viewport, prepare } = {}) {
      const opened = await openApp(browser!, app!.url, { ...(colorScheme ? { colorScheme } : {}), ...(viewport ? { viewport } : {}), ...(prepare ? { prepare } : {}) });
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
    async restart() {
      await closePages();
      await stopServer();
      return startServer();
    },
    afterStop(fn) {
      afterStop.push(fn);
    },
  };
}
