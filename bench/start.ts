// `npm run bench -- start [--quick]` (issue 16, goal 4): cold start of the browser-mode server over a store of a
// million events (the history benchmark's corpus; --quick: 50,000), from process start to the page interactive
// (the workspace and the sidebar's history listed and painted), in Chromium (already running, as the user's
// browser would be; a fresh browser context per start, so nothing is cached; its tab open before the server
// starts, as the Electron window would be, and the page fetched as soon as the server listens).
//   normal start      a backup from today exists (median of 3 starts)
//   backup-day start  no backup yet today: the daily backup is due (median of 2 starts; each waits for the
//                     backup, then removes it for the next)
// Prints, one per line:
//   start.to_interactive: N ms              normal start (goal ≤ 1,000)
//   start.to_interactive_backup_day: N ms   backup-day start
//   start.backup_request_p95: N ms          app.info round trips while that backup copies (how long the event
//                                           loop is held by each backup step), p95; '#': max and the backup's length
//   start.to_interactive_throttled4x: N ms  the normal start with Chromium's CPU throttled 4× (a slow laptop),
//                                           beside its floor: the same throttled start over a store of one
//                                           100-event session (goal: ratio ≤ 1.5); --no-throttle leaves it out
// The store is generated once into $SWITCHBOARD_BENCH_STORE_DIR (default: <tmp>/sb-bench-store-<events>) and reused.
// The Electron main process is not measured here: there is no Electron binary on this machine.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAppServer, type AppServer } from '../test/support/app-server';
import { launchBrowser, openApp } from '../test/support/browser';
import { connectContract } from '../test/support/contract-client';
import { ensureHistoryStore } from './support/million-store';
import { median, percentile, round1 } from './support/stats';
import { loadAvg, log, sleep } from './support/bench-app';
import { INTERACTIVE_PROBE, type Interactive } from './support/interactive-probe';
import { throttle, throttledSuffix, throttleRates } from './support/floors';
import { seedRestoreStore } from './restore-first-paint';

const quick = process.argv.includes('--quick');
const EVENTS = quick ? 50_000 : 1_000_000;
const NORMAL_RUNS = 3;
const BACKUP_RUNS = 2;
/** The start-up backup's delay in the backup-day runs: short, so that the bench need not wait the app's 20 s. */
const BACKUP_DELAY_MS = Number(process.env.SWITCHBOARD_BENCH_BACKUP_DELAY_MS ?? '3000');


const storeDir = process.env.SWITCHBOARD_BENCH_STORE_DIR ?? join(tmpdir(), `sb-bench-store-${EVENTS}`);

log(`# load average at start: ${loadAvg()} (2 cores; other work on the machine slows every figure)`);
const store = ensureHistoryStore(storeDir, { events: EVENTS, log });
log(`# store: ${store.events} events in ${store.sessions} sessions, ${store.bytes} bytes, ${store.generatedSeconds === null ? `reused from ${storeDir}` : `generated in ${Math.round(store.generatedSeconds)} s into ${storeDir}`}`);
const backupsDir = join(storeDir, 'backups');
const browser = await launchBrowser();

interface Start {
  /** process start → interactive, ms */
  interactive: number;
  /** process start → the page's milestones, ms */
  milestones: { navigation: number; responseEnd: number; domContentLoaded: number; socket: number };
  /** process start → the server's "listening" line, ms */
  listening: number;
  rows: number;
}

/** SWITCHBOARD_BENCH_SERVER_PROFILE=/tmp/start.cpuprofile: the server's CPU profile of a normal start (support/cpu-prof-preload.mjs). */
const serverProfileTo = process.env.SWITCHBOARD_BENCH_SERVER_PROFILE ?? '';

/** When the server process of the current start was spawned (epoch ms). */
let startedAt = 0;

async function start(env: Record<string, string>, during?: (app: AppServer) => Promise<void>, { dataDir = storeDir, rate = 1 } = {}): Promise<Start> {
  // The browser is running and its (fresh) tab open before the app starts, as the user's browser or the
  // Electron window would be: the figure is the app's start, not Chromium making a profile.
  const { page, context } = await openApp(browser, 'about:blank');
  await throttle(page, rate);
  await page.addInitScript(INTERACTIVE_PROBE);
  const t0 = Date.now();
  startedAt = t0;
  let app: AppServer;
  try {
    app = await startAppServer({ dataDir, env, until: 'listening' });
  } catch (e) {
    await context.close();
    throw e;
  }
  const listening = Date.now() - t0;
  try {
    try {
      await page.goto(app.url);
      const m = (await page.evaluate('window.__interactive')) as Interactive;
      const rows = await page.locator('[data-testid=history-row]').count();
      await during?.(app);
      const rel = (ms: number) => Math.round(ms - t0);
      return {
        interactive: rel(m.at),
        milestones: { navigation: rel(m.navigation), responseEnd: rel(m.responseEnd), domContentLoaded: rel(m.domContentLoaded), socket: rel(m.socket) },
        listening,
        rows,
      };
    } finally {
      await context.close();
    }
  } finally {
    await app.stop();
  }
}

let backupRoundTrips: number[] = [];
let quietRoundTrips: number[] = [];
let backupSeconds: number[] = [];

/** While the start-up backup runs: app.info round trips, back to back with a short pause, until it is listed. */
async function duringBackup(app: AppServer): Promise<void> {
  const c = await connectContract(app);
  try {
    // The backup starts BACKUP_DELAY_MS after the process did.
    const backupStart = startedAt + BACKUP_DELAY_MS;
    for (;;) {
      const began = Date.now();
      const s = performance.now();
      const { backups } = await c.call<{ backups: unknown[] }>('store.backups.list', {});
      const ms = performance.now() - s;
      if (backups.length > 0) break;
      if (began >= backupStart) backupRoundTrips.push(ms);
      if (Date.now() - backupStart > 600_000) throw new Error('no backup after 10 minutes');
      await sleep(20);
    }
    backupSeconds.push((Date.now() - backupStart) / 1000);
    // The same round trips with no backup running, for comparison.
    for (let i = 0; i < 50; i++) {
      const s = performance.now();
      await c.call('store.backups.list', {});
      quietRoundTrips.push(performance.now() - s);
      await sleep(20);
    }
  } finally {
    c.close();
  }
}

try {
  // Warm-up: one start (the page cache holds the store afterwards, as on a machine that used it recently).
  rmSync(backupsDir, { recursive: true, force: true });
  await start({ SWITCHBOARD_STARTUP_BACKUP_DELAY_MS: '0' }, async (app) => {
    // Leave a backup from today, so the following starts are normal ones.
    const c = await connectContract(app);
    for (let i = 0; i < 6000; i++) {
      const { backups } = await c.call<{ backups: unknown[] }>('store.backups.list', {});
      if (backups.length > 0) break;
      await sleep(100);
    }
    c.close();
  });
  if (!existsSync(backupsDir)) throw new Error('the warm-up start made no backup');

  const normal: Start[] = [];
  if (serverProfileTo) {
    const env = { NODE_OPTIONS: `--import ${new URL('./support/cpu-prof-preload.mjs', import.meta.url).href}`, SWITCHBOARD_CPU_PROF_FILE: serverProfileTo, SWITCHBOARD_CPU_PROF_AT_START: '1' };
    const profiled = await start(env, async (app) => {
      app.proc.kill('SIGUSR2');
      for (let i = 0; i < 100 && !existsSync(serverProfileTo); i++) await sleep(100);
    });
    log(`# the server's CPU profile of a normal start (${profiled.interactive} ms; process start → interactive): ${serverProfileTo}`);
  }
  for (let i = 0; i < NORMAL_RUNS; i++) normal.push(await start({}));
  log(`# normal start (a backup from today exists): ${normal.map((s) => `${s.interactive} ms`).join(', ')}; ${normal[0]!.rows} history rows listed`);
  const mid = (f: (s: Start) => number) => median(normal.map(f));
  log(
    `# where (medians, ms from process start): server listening ${mid((s) => s.listening)}, page navigation ${mid((s) => s.milestones.navigation)}, HTML received ${mid((s) => s.milestones.responseEnd)}, DOMContentLoaded (scripts run) ${mid((s) => s.milestones.domContentLoaded)}, WebSocket open ${mid((s) => s.milestones.socket)}, history listed and painted ${mid((s) => s.interactive)}`,
  );

  const backupDay: Start[] = [];
  backupRoundTrips = [];
  quietRoundTrips = [];
  backupSeconds = [];
  for (let i = 0; i < BACKUP_RUNS; i++) {
    rmSync(backupsDir, { recursive: true, force: true });
    backupDay.push(await start({ SWITCHBOARD_STARTUP_BACKUP_DELAY_MS: String(BACKUP_DELAY_MS) }, duringBackup));
  }
  log(`# backup-day start (the daily backup due; it starts ${BACKUP_DELAY_MS} ms after start here, 20 s in the app): ${backupDay.map((s) => `${s.interactive} ms`).join(', ')}`);
  log(`# while the backup copied the ${store.bytes}-byte store (${backupSeconds.map((s) => `${s.toFixed(1)} s`).join(', ')}): ${backupRoundTrips.length} request round trips, p50 ${round1(percentile(backupRoundTrips, 50))} ms, p95 ${round1(percentile(backupRoundTrips, 95))} ms, max ${round1(Math.max(...backupRoundTrips))} ms; after it, with no backup running: p50 ${round1(percentile(quietRoundTrips, 50))} ms, p95 ${round1(percentile(quietRoundTrips, 95))} ms, max ${round1(Math.max(...quietRoundTrips))} ms`);
  const throttled: string[] = [];
  for (const rate of throttleRates().filter((r) => r !== 1)) {
    // The floor: the same start over a store of one 100-event session (with today's backup, as the normal start).
    const small = mkdtempSync(join(tmpdir(), 'sb-bench-start-small-'));
    try {
      seedRestoreStore(small, 100);
      await start({ SWITCHBOARD_STARTUP_BACKUP_DELAY_MS: '0' }, async (app) => {
        const c = await connectContract(app);
        for (let i = 0; i < 600; i++) {
          if ((await c.call<{ backups: unknown[] }>('store.backups.list', {})).backups.length > 0) break;
          await sleep(100);
        }
        c.close();
      }, { dataDir: small });
      const big: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < NORMAL_RUNS; i++) {
        big.push((await start({}, undefined, { rate })).interactive);
        floor.push((await start({}, undefined, { rate, dataDir: small })).interactive);
      }
      log(`# starts with Chromium's CPU throttled ${rate}×: over the store ${big.join(', ')} ms; over one 100-event session ${floor.join(', ')} ms`);
      throttled.push(
        `start.to_interactive${throttledSuffix(rate)}: ${median(big)} ms (floor, the same start over one 100-event session: ${median(floor)} ms; ratio ${round1(median(big) / median(floor))}; goal ≤ 1.5)`,
      );
    } finally {
      rmSync(small, { recursive: true, force: true });
    }
  }
  log('# the Electron main process: not measured (no Electron binary on this machine)');
  log(`start.to_interactive: ${median(normal.map((s) => s.interactive))} ms`);
  log(`start.to_interactive_backup_day: ${median(backupDay.map((s) => s.interactive))} ms`);
  log(`start.backup_request_p95: ${round1(percentile(backupRoundTrips, 95))} ms`);
  for (const line of throttled) log(line);
} finally {
  await browser.close();
}
log(`# load average at end: ${loadAvg()}`);
process.exit(0);
