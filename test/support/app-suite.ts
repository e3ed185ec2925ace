import { realpathSync, rmSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { diagnostics, startAppServer, tempDir, type AppServer } from './app-server';
import { launchBrowser, openApp, type OpenedApp } from './browser';

export interface AppSuite {
  readonly app: AppServer;
  /** A project folder (real path) for the suite's sessions. */
  readonly work: string;
  /** A fresh page on the app, its workspace shown; `empty`: the tabs the saved layout brought back are closed. */
  open(options?: { empty?: boolean }): Promise<OpenedApp>;
}

/**
 * One app server (browser mode, its own data folder), one Chromium and a project folder for a suite of
 * end-to-end tests; each test's pages are closed after it, and a failed test prints what the server and
 * its agents last said.
 */
export function appSuite(prefix: string, setup?: (app: AppServer) => Promise<void>): AppSuite {
  let app: AppServer | null = null;
  let browser: Browser | null = null;
  let work = '';
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    work = realpathSync(tempDir(`sb-${prefix}-work-`));
    [app, browser] = await Promise.all([startAppServer(), launchBrowser()]);
    await setup?.(app);
  }, 90_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && app) console.error(diagnostics(app));
    for (const c of contexts.splice(0)) await c.close().catch(() => {});
  });
  afterAll(async () => {
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
    async open({ empty = false } = {}) {
      const opened = await openApp(browser!, app!.url);
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
