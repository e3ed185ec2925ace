import { chromium, type Browser, type BrowserContext, type BrowserServer, type Page } from 'playwright-core';

export const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/** A Chromium that suites connect to (the e2e project's global setup starts one for the run). */
export function launchBrowserServer(): Promise<BrowserServer> {
  return chromium.launchServer({ executablePath: CHROMIUM, args: ARGS });
}

/** The run's shared Chromium, when a vitest run provides one (not in benches, which launch their own). */
async function sharedEndpoint(): Promise<string | null> {
  if (!process.env.VITEST) return null;
  const { inject } = await import('vitest');
  return inject('chromiumEndpoint') ?? null;
}

/**
 * A browser for a suite: a connection to the run's shared Chromium (closing it closes the suite's contexts and
 * leaves the browser to the others), or, with flags of its own or outside a test run, a Chromium of its own.
 */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const endpoint = extraArgs.length === 0 ? await sharedEndpoint() : null;
  if (endpoint) return chromium.connect(endpoint);
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs] });
}

export interface OpenedApp {
  context: BrowserContext;
  page: Page;
  /** console errors and uncaught page errors seen so far */
  errors: string[];
}

/** Opens the app in a new browser context; `prepare` runs before the page loads (routes, for one). */
export async function openApp(
  browser: Browser,
  url: string,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number }; prepare?(context: BrowserContext): Promise<void> } = {},
): Promise<OpenedApp> {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: options.viewport ?? { width: 1280, height: 800 } });
  await options.prepare?.(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { context, page, errors };
}

/** The contract calls the page sends (method and params), read from its WebSocket (its address carries the first ones). */
export function recordCalls(page: Page): Array<{ method: string; params: Record<string, unknown> }> {
  const calls: Array<{ method: string; params: Record<string, unknown> }> = [];
  page.on('websocket', (ws) => {
    const early = new URL(ws.url()).searchParams.get('early');
    if (early) calls.push(...(JSON.parse(early) as Array<{ method: string; params: Record<string, unknown> }>));
    ws.on('framesent', (f) => {
      const frame = JSON.parse(String(f.payload)) as { type: string; method?: string; params?: Record<string, unknown> };
      if (frame.type === 'invoke' && frame.method) calls.push({ method: frame.method, params: frame.params ?? {} });
    });
  });
  return calls;
}
