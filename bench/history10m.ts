// `npm run bench -- history10m [--quick] [--events N] [--dir DIR] [--reuse]` (issue 28 §2): a year of history.
// The history benchmark's corpus (bench/history/corpus.ts) at ten million events (`--quick`: 200,000; `--events N`
// for any size; a 10 M run takes hours on a loaded 2-core machine): the store written as the app writes it,
// and the same events as the agents' JSONL files, one per session.
//   history10m.start_to_interactive  the browser-mode server process started over that store → the workspace and
//                                    the sidebar's history listed and painted in Chromium, its tab already open
//                                    (median of 3 after a warm-up); floor: the same start over a store of one
//                                    100-event session
//   history10m.search_p95            50 mixed queries, 20 hits each (best of 3 rounds per query)
//   history10m.speedup_vs_grep       grep (or ripgrep) over the JSONL ÷ the index, the same queries
//   history10m.bytes_vs_jsonl        the store (file + WAL after a checkpoint) ÷ the JSONL
//   history10m.open_first_paint      the largest session (pinned, so the sidebar lists it) clicked in the sidebar
//                                    → its first transcript rows painted, the worse of the cold open and the
//                                    median of 5; floor: the same for a 100-event session
//   …_throttled4x                    start and open again with Chromium's CPU throttled 4× (floors alike);
//                                    --no-throttle / --throttled-only run one of the two
// '#' lines: the same start and 30 sessions' first page measured at the server, with no browser.
// The generator streams (one session in memory at a time): its peak RSS is printed at each size it passes.
// Every figure says at what size it was measured; nothing is extrapolated.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startAppServer } from '../test/support/app-server';
import { connectContract } from '../test/support/contract-client';
import { launchBrowser, openApp } from '../test/support/browser';
import { runHistoryBench } from './history/index';
import { measureRestoreFirstPaint, seedRestoreStore, type FirstPaintResult } from './restore-first-paint';
import { throttle, throttledSuffix, throttleRates } from './support/floors';
import { INTERACTIVE_PROBE, type Interactive } from './support/interactive-probe';
import { median, percentile, round1 } from './support/stats';

const args = process.argv.slice(2);
const value = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick');
const events = Number(value('--events') ?? (quick ? 200_000 : 10_000_000));
// About 90 sessions a day over the year at 10 M events.
const sessions = Math.max(10, Math.round(events / 300));
const givenDir = value('--dir');
const dir = givenDir ?? mkdtempSync(join(tmpdir(), 'sb-bench-history10m-'));
const log = (line: string): void => console.log(line);
const size = `${events.toLocaleString('en')} events`;

log(`# load average at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (2 cores, shared: other work slows every figure)`);
try {
  const t0 = performance.now();
  const r = await runHistoryBench({
    events,
    sessions,
    dir,
    keep: true,
    reuse: args.includes('--reuse'),
    fresh: true,
    rounds: 3,
    // The history bench's own figure lines become notes here: this bench prints its own.
    log: (line) => log(line.startsWith('#') ? line : `# (history bench) ${line}`),
  });
  log(`# corpus and store made and searched in ${round1((performance.now() - t0) / 1000)} s`);

  // ── start and open, through the app server (browser mode)
  const db = new Database(join(dir, 'switchboard.db'));
  const largest = db.prepare('SELECT session_id AS id, message_count AS n FROM history_sessions ORDER BY message_count DESC LIMIT 1').get() as { id: string; n: number };
  const some = (db.prepare('SELECT session_id AS id FROM history_sessions ORDER BY random() LIMIT 29').all() as Array<{ id: string }>).map((s) => s.id);
  // Pinned, the largest session is listed first in the sidebar, where the painted open clicks it.
  db.prepare('UPDATE sessions SET pinned = 1 WHERE id = ?').run(largest.id);
  db.close();

  /** At the server, no browser: start → first history.list answered; opening 30 sessions' first page. */
  const startOnce = async (dataDir: string): Promise<{ listening: number; interactive: number; open: number[]; floor: number[] }> => {
    const s0 = performance.now();
    const app = await startAppServer({ dataDir });
    const listening = performance.now() - s0;
    try {
      const c = await connectContract(app);
      try {
        await c.call('history.list', { limit: 50, offset: 0 });
        const interactive = performance.now() - s0;
        const open: number[] = [];
        const floor: number[] = [];
        if (dataDir === dir) {
          for (const id of [largest.id, ...some]) {
            const f = performance.now();
            await c.call('app.info', {});
            floor.push(performance.now() - f);
            const o = performance.now();
            await c.call('history.entries', { sessionId: id, limit: 60, aroundSeq: Number.MAX_SAFE_INTEGER });
            open.push(performance.now() - o);
          }
        }
        return { listening, interactive, open, floor };
      } finally {
        c.close();
      }
    } finally {
      await app.stop();
    }
  };

  /** Each start opens with no tab (an earlier run's transcript tab would be restored from the saved layout). */
  const noSavedTabs = (dataDir: string): void => {
    const d = new Database(join(dataDir, 'switchboard.db'));
    d.prepare("DELETE FROM settings WHERE key = 'workspace.layout'").run();
    d.close();
  };
  /** In Chromium: server process start → the page showing the workspace and the sidebar's history, painted. */
  const paintedStart = async (dataDir: string, rate: number): Promise<number> => {
    noSavedTabs(dataDir);
    // The browser's (fresh) tab is open before the app starts, as the user's browser or the Electron window
    // would be; the page is fetched as soon as the server listens (the core still starting).
    const { page, context } = await openApp(browser, 'about:blank');
    try {
      await throttle(page, rate);
      await page.addInitScript(INTERACTIVE_PROBE);
      const t0 = Date.now();
      const app = await startAppServer({ dataDir, until: 'listening' });
      try {
        await page.goto(app.url);
        return ((await page.evaluate('window.__interactive')) as Interactive).at - t0;
      } finally {
        await app.stop();
      }
    } finally {
      await context.close();
    }
  };
  /** In Chromium: a click on the session in the sidebar → its first transcript rows painted (5 opens; the first cold). */
  const paintedOpen = async (dataDir: string, sessionId: string, rate: number): Promise<FirstPaintResult> => {
    noSavedTabs(dataDir);
    const app = await startAppServer({ dataDir });
    try {
      return await measureRestoreFirstPaint(app, { sessionId, browser, runs: 5, rate });
    } finally {
      await app.stop();
    }
  };

  // The floor of both: the same app over a store of one 100-event session.
  const small = mkdtempSync(join(tmpdir(), 'sb-bench-history10m-small-'));
  const browser = await launchBrowser();
  try {
    const smallSession = seedRestoreStore(small, 100).sessionId;
    await startOnce(dir); // warm-up: the page cache holds the store afterwards, as after a recent use
    const starts = [await startOnce(dir), await startOnce(dir), await startOnce(dir)];
    const open = starts.flatMap((s) => s.open);
    const openFloor = starts.flatMap((s) => s.floor);
    log(`# at the server (no browser): start → first history.list answered ${starts.map((s) => `${Math.round(s.interactive)} ms (listening ${Math.round(s.listening)})`).join(', ')}`);
    log(`# at the server: a session's first page (history.entries, 60 rows around the end, as the transcript tab asks) over 30 sessions (the largest: ${largest.n.toLocaleString('en')} messages): median ${round1(median(open))} ms, p95 ${round1(percentile(open, 95))} ms; an app.info round trip p95 ${round1(percentile(openFloor, 95))} ms`);
    const figures: string[] = [];
    for (const rate of throttleRates()) {
      const suffix = throttledSuffix(rate);
      const note = rate === 1 ? '' : `, Chromium's CPU throttled ${rate}×`;
      await paintedStart(dir, rate); // warm-up
      const big = [await paintedStart(dir, rate), await paintedStart(dir, rate), await paintedStart(dir, rate)];
      const floor = [await paintedStart(small, rate), await paintedStart(small, rate), await paintedStart(small, rate)];
      log(`# painted starts${note}: over the store ${big.map(Math.round).join(', ')} ms; over one 100-event session ${floor.map(Math.round).join(', ')} ms`);
      const o = await paintedOpen(dir, largest.id, rate);
      const of = await paintedOpen(small, smallSession, rate);
      log(`# painted opens${note}: the largest session (${largest.n.toLocaleString('en')} messages, ${o.entries.toLocaleString('en')} entries) ${o.runs.join(', ')} ms (first = cold); a 100-event session ${of.runs.join(', ')} ms`);
      const worst = (r: FirstPaintResult): number => Math.max(r.firstMs, r.medianMs);
      figures.push(
        `history10m.start_to_interactive${suffix}: ${Math.round(median(big))} ms at ${size} (floor, the same start over one 100-event session: ${Math.round(median(floor))} ms; ratio ${round1(median(big) / median(floor))}; server process start → workspace and history listed, painted${note})`,
        `history10m.open_first_paint${suffix}: ${round1(worst(o))} ms at ${size} (the largest session, the worse of its cold open and its median; floor, a 100-event session: ${round1(worst(of))} ms; ratio ${round1(worst(o) / worst(of))}; click → first rows painted${note})`,
      );
    }
    log(`history10m.search_p95: ${r['search.p95']} ms at ${size} (p50 ${r['search.p50']} ms; floor: none, grep below is the baseline)`);
    log(`history10m.speedup_vs_grep: ${r['search.speedup_vs_grep']} ratio at ${size} (grep mean ${r.details.grepMeanMs} ms, index mean ${r.details.searchMeanMsSameQueries} ms on ${r.details.grepQueries} queries)`);
    log(`history10m.bytes_vs_jsonl: ${Math.round((r.details.storeBytes / r.details.jsonlBytes) * 100) / 100} ratio at ${size} (store ${r.details.storeBytes} bytes, JSONL ${r.details.jsonlBytes} bytes)`);
    for (const f of figures) log(f);
    const rss = r.details.peakRssMb.map(([n, mb]) => `${mb} MB at ${n.toLocaleString('en')} events`).join(', ');
    log(`history10m.generator_peak_rss_mb: ${rss || 'not measured (the store was reused, not generated, in this run)'}`);
  } finally {
    await browser.close();
    rmSync(small, { recursive: true, force: true });
  }
} finally {
  if (!givenDir) rmSync(dir, { recursive: true, force: true });
}
log(`# load average at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
process.exit(0);
