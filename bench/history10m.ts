// `npm run bench -- history10m [--quick] [--events N] [--dir DIR] [--reuse]` (issue 28 §2): a year of history.
// The history benchmark's corpus (bench/history/corpus.ts) at ten million events (`--quick`: 200,000; `--events N`
// for any size; a 10 M run takes hours on a loaded 2-core machine): the store written as the app writes it,
// and the same events as the agents' JSONL files, one per session.
//   history10m.start_to_interactive  the browser-mode server started over that store → its first history.list
//                                    answered (what the sidebar shows first); floor: the same over an empty store
//   history10m.search_p95            50 mixed queries, 20 hits each (best of 3 rounds per query)
//   history10m.speedup_vs_grep       grep (or ripgrep) over the JSONL ÷ the index, the same queries
//   history10m.bytes_vs_jsonl        the store (file + WAL after a checkpoint) ÷ the JSONL
//   history10m.open_first_paint      a session opened: the server's first page of its thread (history.entries,
//                                    60 rows around the end, as the transcript tab asks), p95 over 30 sessions
//                                    with the largest among them; measured at the server, not painted in a
//                                    browser; floor: an app.info round trip
// The generator streams (one session in memory at a time): its peak RSS is printed at each size it passes.
// Every figure says at what size it was measured; nothing is extrapolated.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startAppServer } from '../test/support/app-server';
import { connectContract } from '../test/support/contract-client';
import { runHistoryBench } from './history/index';
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
  const db = new Database(join(dir, 'switchboard.db'), { readonly: true });
  const largest = db.prepare('SELECT session_id AS id, message_count AS n FROM history_sessions ORDER BY message_count DESC LIMIT 1').get() as { id: string; n: number };
  const some = (db.prepare('SELECT session_id AS id FROM history_sessions ORDER BY random() LIMIT 29').all() as Array<{ id: string }>).map((s) => s.id);
  db.close();

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
  const empty = mkdtempSync(join(tmpdir(), 'sb-bench-history10m-empty-'));
  try {
    await startOnce(dir); // warm-up: the page cache holds the store afterwards, as after a recent use
    const starts = [await startOnce(dir), await startOnce(dir), await startOnce(dir)];
    const floors = [await startOnce(empty), await startOnce(empty), await startOnce(empty)];
    const interactive = median(starts.map((s) => s.interactive));
    const floor = median(floors.map((s) => s.interactive));
    log(`# starts over the store: ${starts.map((s) => `${Math.round(s.interactive)} ms (listening ${Math.round(s.listening)})`).join(', ')}; over an empty store: ${floors.map((s) => `${Math.round(s.interactive)} ms`).join(', ')}`);
    const open = starts.flatMap((s) => s.open);
    const openFloor = starts.flatMap((s) => s.floor);
    log(`# sessions opened: 30 per start (the largest: ${largest.n.toLocaleString('en')} messages), median ${round1(median(open))} ms`);
    log(`history10m.start_to_interactive: ${Math.round(interactive)} ms at ${size} (floor, the same start over an empty store: ${Math.round(floor)} ms; ratio ${round1(interactive / floor)}; server start → first history.list answered, no browser)`);
    log(`history10m.search_p95: ${r['search.p95']} ms at ${size} (p50 ${r['search.p50']} ms; floor: none, grep below is the baseline)`);
    log(`history10m.speedup_vs_grep: ${r['search.speedup_vs_grep']} ratio at ${size} (grep mean ${r.details.grepMeanMs} ms, index mean ${r.details.searchMeanMsSameQueries} ms on ${r.details.grepQueries} queries)`);
    log(`history10m.bytes_vs_jsonl: ${Math.round((r.details.storeBytes / r.details.jsonlBytes) * 100) / 100} ratio at ${size} (store ${r.details.storeBytes} bytes, JSONL ${r.details.jsonlBytes} bytes)`);
    log(`history10m.open_first_paint: ${round1(percentile(open, 95))} ms p95 at ${size} (floor, an app.info round trip: ${round1(percentile(openFloor, 95))} ms p95; ratio ${round1(percentile(open, 95) / percentile(openFloor, 95))}; the server's first page of the thread, not painted in a browser)`);
    const rss = r.details.peakRssMb.map(([n, mb]) => `${mb} MB at ${n.toLocaleString('en')} events`).join(', ');
    log(`history10m.generator_peak_rss_mb: ${rss || 'not measured (the store was reused, not generated, in this run)'}`);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
} finally {
  if (!givenDir) rmSync(dir, { recursive: true, force: true });
}
log(`# load average at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
process.exit(0);
