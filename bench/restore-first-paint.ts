// restore.first_paint: the time from opening a stored 10,000-event session (a click on it in the History
// sidebar) to its first transcript entries painted, in Chromium against the built app in browser mode.
//
//   const { sessionId } = seedRestoreStore(dataDir);            // before the app starts
//   const app = await startAppServer({ dataDir });
//   const r = await measureRestoreFirstPaint(app, { sessionId }); // r.firstMs, r.medianMs
//
//   or all in one: await runRestoreBench()  →  { 'restore.first_paint': ms, details }
//
// The clock starts in the page at the click (a capturing listener, performance.now()) and stops at the first
// animation frame after an entry of the transcript tab is in the DOM, plus a task (the frame has been painted).
import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { startAppServer, tempDir, type AppServer } from '../test/support/app-server';
import { launchBrowser, openApp } from '../test/support/browser';
import { seedHistory } from '../test/support/history-seed';
import { Corpus, generateSession } from './history/corpus';
import { throttle } from './support/floors';

export interface RestoreStore {
  sessionId: string;
  events: number;
}

/** Writes one session of `events` ACP messages (the history benchmark's generator) into dataDir's store. */
export function seedRestoreStore(dataDir: string, events = 10_000): RestoreStore {
  const sessionId = 'restore-bench';
  const spec = generateSession(new Corpus(42), sessionId, Date.now() - 86_400_000, events);
  const messages = spec.messages.slice(0, events);
  seedHistory(dataDir, {
    sessions: [{ id: sessionId, agentId: spec.agentId, cwd: spec.cwd, createdAt: spec.createdAt, title: null, messages }],
  });
  return { sessionId, events: messages.length };
}

export interface FirstPaintResult {
  /** The first open (cold: nothing of the session cached in the page). */
  firstMs: number;
  /** Median over all runs (the transcript tab is closed between runs). */
  medianMs: number;
  runs: number[];
  /** Entries in the transcript. */
  entries: number;
}

const round = (n: number): number => Math.round(n * 10) / 10;

// Page script as text (a compiled function could carry the bundler's helpers, which the page lacks).
const ARM_FIRST_PAINT = `(() => {
  window.__firstPaint = new Promise((resolve) => {
    let t0 = null;
    document.addEventListener('click', () => { t0 = performance.now(); }, { capture: true, once: true });
    const mo = new MutationObserver(() => {
      if (t0 === null || !document.querySelector('[data-testid=transcript-tab] [data-testid=transcript-entry]')) return;
      const start = t0;
      mo.disconnect();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
    });
    mo.observe(document.body, { childList: true, subtree: true });
  });
})()`;

/** Opens `sessionId` from the History sidebar `runs` times in a fresh page and times its first paint (the page closed after). */
export async function measureRestoreFirstPaint(
  app: AppServer,
  options: { sessionId: string; browser?: Browser; runs?: number; /** Chromium's CPU throttled this many times. */ rate?: number },
): Promise<FirstPaintResult> {
  const browser = options.browser ?? (await launchBrowser());
  const runs: number[] = [];
  let entries = 0;
  try {
    const { page, context } = await openApp(browser, app.url);
    try {
      await throttle(page, options.rate ?? 1);
      const row = page.locator(`[data-testid=sidebar-history] [data-testid=history-row][data-session-id="${options.sessionId}"] [data-testid=history-open]`);
      await row.waitFor({ timeout: 30_000 });
      for (let i = 0; i < (options.runs ?? 5); i++) {
        await page.evaluate(ARM_FIRST_PAINT);
        await row.click();
        const ms = (await page.evaluate('window.__firstPaint')) as number;
        runs.push(round(ms));
        entries = Number(await page.locator('[data-testid=transcript-tab]').getAttribute('data-total', { timeout: 30_000 }));
        // Close the transcript tab for the next run.
        await page.locator('[role=tab][aria-selected=true] .tab-close').click();
        await page.locator('[data-testid=transcript-tab]').waitFor({ state: 'detached' });
      }
    } finally {
      await context.close();
    }
  } finally {
    if (!options.browser) await browser.close();
  }
  const sorted = [...runs].sort((a, b) => a - b);
  return { firstMs: runs[0]!, medianMs: sorted[Math.floor(sorted.length / 2)]!, runs, entries };
}

/** Seeds a temp store, starts the built app (out/main/server.js) on it, measures, cleans up. */
export async function runRestoreBench(options: { events?: number; runs?: number; log?: (line: string) => void } = {}): Promise<{
  'restore.first_paint': number;
  details: FirstPaintResult & { events: number };
}> {
  const log = options.log ?? ((l: string) => console.log(l));
  const dataDir = tempDir('sb-bench-restore-');
  let app: AppServer | null = null;
  try {
    const store = seedRestoreStore(dataDir, options.events ?? 10_000);
    app = await startAppServer({ dataDir });
    const r = await measureRestoreFirstPaint(app, { sessionId: store.sessionId, runs: options.runs ?? 5 });
    log(`# restore: ${store.events} events, ${r.entries} entries; first paint runs ${r.runs.join(', ')} ms (first = cold)`);
    log(`restore.first_paint: ${r.firstMs} ms`);
    return { 'restore.first_paint': r.firstMs, details: { ...r, events: store.events } };
  } finally {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export default runRestoreBench;
