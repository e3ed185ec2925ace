// What the browser benches share: their log lines, and Chromium with the built app's server around a run.
import { readFileSync, rmSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startAppServer, type AppServer } from '../../test/support/app-server';
import { launchBrowser, openApp, type OpenedApp } from '../../test/support/browser';
import { benchWorkDir, readyWorkspace } from './app-session';
import { installArrivalProbe, installProbes } from './page-probes';
import { rssBytes } from './proc';
import { median } from './stats';

export const log = (line: string): void => console.log(line);
export const loadAvg = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** The number given as `--<name>=N` on the bench's command line, else `fallback`. */
export function numberFlag(name: string, fallback: number): number {
  const flag = process.argv.find((a) => a.startsWith(`--${name}=`));
  return flag ? Number(flag.slice(name.length + 3)) : fallback;
}

/** SWITCHBOARD_BENCH_SERVER_PROFILE=file.cpuprofile: also records the server's CPU profile of the run (cpu-prof-preload.mjs). */
export const serverProfileTo = process.env.SWITCHBOARD_BENCH_SERVER_PROFILE ?? '';

export interface BenchApp {
  browser: Browser;
  app: AppServer;
  /** A scratch folder for the agents' sessions, removed afterwards. */
  work: string;
}

/** Runs `run` against a fresh app server (its own data folder) in Chromium; then stops both and removes the work folder. */
export async function withBenchApp<T>(run: (b: BenchApp) => Promise<T>): Promise<T> {
  const work = benchWorkDir();
  const browser = await launchBrowser();
  let app: AppServer | null = null;
  const preloads = [
    new URL('./heap-preload.mjs', import.meta.url).href,
    new URL('./stamp-preload.mjs', import.meta.url).href,
    ...(serverProfileTo ? [new URL('./cpu-prof-preload.mjs', import.meta.url).href] : []),
  ];
  try {
    app = await startAppServer({
      env: {
        NODE_OPTIONS: preloads.map((p) => `--import ${p}`).join(' '),
        SWITCHBOARD_HEAP_FILE: heapFile(work),
        SWITCHBOARD_STAMP_FILE: stampFile(work),
        ...(serverProfileTo ? { SWITCHBOARD_CPU_PROF_FILE: serverProfileTo } : {}),
      },
    });
    return await run({ browser, app, work });
  } finally {
    await browser.close();
    await app?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(heapFile(work), { force: true });
    rmSync(stampFile(work), { force: true });
  }
}

/**
 * Runs `run` on the app opened in a fresh browser context, then closes the context. With `probes`, the
 * arrival and paint probes are in the page once its workspace is ready. The page's errors are logged after
 * a run; a failed run leaves a screenshot of the page in /tmp/<name>-failed.png.
 */
export async function withAppPage<T>(browser: Browser, url: string, name: string, run: (opened: OpenedApp) => Promise<T>, options: { probes?: boolean } = {}): Promise<T> {
  const opened = await openApp(browser, url);
  const { page, context, errors } = opened;
  try {
    if (options.probes) {
      await installArrivalProbe(page);
      await readyWorkspace(page);
      await installProbes(page);
    }
    const result = await run(opened);
    if (errors.length) log(`# page errors: ${errors.slice(0, 3).join(' | ')}`);
    return result;
  } catch (e) {
    const shot = `/tmp/${name}-failed.png`;
    await page.screenshot({ path: shot }).catch(() => {});
    console.error(`# a screenshot of the page: ${shot}`);
    throw e;
  } finally {
    await context.close();
  }
}

const heapFile = (work: string): string => `${work}.heap.json`;
const stampFile = (work: string): string => `${work}.stamps.json`;

/**
 * The server's share of write → paint since the last call (support/stamp-preload.mjs): each stamped chunk's
 * agent write → its bytes read from the agent's pipe (`recv`), and → first written to a socket (`send`), ms.
 */
export async function takeServerStamps(b: BenchApp): Promise<{ recv: number[]; send: number[] }> {
  rmSync(stampFile(b.work), { force: true });
  b.app.proc.kill('SIGWINCH');
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    try {
      return JSON.parse(readFileSync(stampFile(b.work), 'utf8')) as { recv: number[]; send: number[] };
    } catch {
      // not written yet
    }
  }
  throw new Error('the server did not write its stamps in 30 s');
}

/** The bench server's memory after a GC (support/heap-preload.mjs), bytes. */
export async function serverMemoryAfterGc(b: BenchApp): Promise<{ heapUsed: number; rss: number }> {
  rmSync(heapFile(b.work), { force: true });
  b.app.proc.kill('SIGUSR1');
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    try {
      const m = JSON.parse(readFileSync(heapFile(b.work), 'utf8')) as { heapUsed: number; rss: number };
      return m;
    } catch {
      // not written yet
    }
  }
  throw new Error('the server did not write its memory after a GC in 30 s');
}

/** A process's RSS after a pause, the median of a few samples (GC makes single samples jumpy), bytes. */
export async function settledRss(pid: number): Promise<number> {
  await sleep(2000);
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    xs.push(rssBytes(pid));
    await sleep(200);
  }
  return median(xs);
}

/** The page's JS heap after a GC, bytes. */
export async function heapBytes(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    return usedSize;
  } finally {
    await cdp.detach();
  }
}

/** The page's DOM nodes and JS event listeners (DevTools Memory.getDOMCounters). */
export async function domCounters(page: Page): Promise<{ nodes: number; jsEventListeners: number }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    return (await cdp.send('Memory.getDOMCounters')) as { nodes: number; jsEventListeners: number };
  } finally {
    await cdp.detach();
  }
}
