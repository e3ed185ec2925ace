// History benchmark: a store of 10,000 sessions / 1,000,000 ACP messages indexed through the real indexer,
// the same transcripts as JSONL files (one per session, as agents keep their own histories), and 50 mixed
// queries timed against the index and against grep (or ripgrep) over the JSONL files. The store is written as
// Switchboard wrote it before migration 0013 and then migrated as the app does at start-up (timed:
// store.migration_events_per_s); its size is then taken all-in (file and WAL after a checkpoint, by table in a
// '#' line). `fresh: true` (run.ts --fresh) writes it as a new Switchboard does instead (entries compressed as
// written, the log packed by the app's packer, no VACUUM).
//
//   runHistoryBench()                  full scale (takes a few minutes and ~2 GB of temp disk)
//   runHistoryBench({ scale: 0.02 })   200 sessions / 20,000 messages, for a quick run
//
// Plain Node + better-sqlite3 (no Vite): migrations are read from src/main/core/store/migrations.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryIndex } from '../../src/main/core/history/history-index';
import { INDEX_CAPS } from '../../src/main/core/history/entry-drafts';
import { searchHistory } from '../../src/main/core/history/search';
import type Database from 'better-sqlite3';
import type { StoreMigration } from '../../src/shared/contract/app';
import { EventBus } from '../../src/main/core/base/event-bus';
import { HistoryService } from '../../src/main/core/history/history-service';
import { StorePacker } from '../../src/main/core/history/store-packer';
import { openDatabase } from '../../src/main/core/store/database';
import { migrations } from '../../src/main/core/store/migrations';
import { StoreService } from '../../src/main/core/store/store-service';
import { MessageLog, type LogEntry } from '../../src/main/core/store/message-log';
import { benchQueries, Corpus, historySessions } from './corpus';

export interface HistoryBenchOptions {
  /** Fraction of the full size (10,000 sessions, 1,000,000 messages). Default 1. */
  scale?: number;
  sessions?: number;
  events?: number;
  /** Work directory (kept if given); a temp dir (removed afterwards) otherwise. */
  dir?: string;
  /** Keep the generated store and JSONL files. */
  keep?: boolean;
  /** Reuse the store and JSONL files a kept earlier run left in `dir` (skips generation). */
  reuse?: boolean;
  /** Timed rounds over the 50 queries. */
  rounds?: number;
  /**
   * Write the store as a new Switchboard does (packed by the app's packer once sessions are quiet, no
   * VACUUM) instead of in the old format then migrated.
   */
  fresh?: boolean;
  /** Hits per query (with snippets). Default 20, history.search's default page. */
  limit?: number;
  log?: (line: string) => void;
}

export interface HistoryBenchResult {
  'search.p50': number;
  'search.p95': number;
  'search.speedup_vs_grep': number;
  'store.bytes_per_million_events': number;
  details: {
    sessions: number;
    events: number;
    entries: number;
    generateSeconds: number;
    storeBytes: number;
    jsonlBytes: number;
    grepTool: string;
    /** The generator's peak RSS (MB) by events generated. */
    peakRssMb: Array<[number, number]>;
    grepQueries: number;
    grepMeanMs: number;
    searchMeanMsSameQueries: number;
    slowest: Array<{ query: string; ms: number }>;
  };
}


/** Event counts at which the generator's peak memory is noted. */
const RSS_MARKS = [100_000, 1_000_000, 10_000_000];
const rssAt = new Map<number, number>();
const peakRssMb = (): number => Math.round(process.resourceUsage().maxRSS / 1024);

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

function fileSize(p: string): number {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
}

function hasCommand(cmd: string): boolean {
  return spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Pages of each table and index (dbstat), largest first: where the bytes are. */
function storeBreakdown(db: Database.Database): string {
  const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 8').all() as Array<{ name: string; bytes: number }>;
  return rows.map((r) => `${r.name} ${round(r.bytes / 1e6, 1)} MB`).join(', ');
}

/** Opens the store the way the app does (StoreService, then HistoryService.start) and waits for its migration. */
async function migrateStore(dir: string, log: (line: string) => void): Promise<{ seconds: number; eventsPerSecond: number }> {
  const bus = new EventBus();
  let last = '';
  let eventsPerSecond = 0;
  bus.connect((name, payload) => {
    if (name !== 'app.storeMigration') return;
    const p = payload as StoreMigration;
    const line = `# migration: ${p.phase} ${p.done}/${p.total}`;
    if (p.phase !== last || p.done === p.total) log(line);
    last = p.phase;
    if (p.eventsPerSecond !== null) eventsPerSecond = p.eventsPerSecond;
  });
  const t0 = performance.now();
  const store = new StoreService(dir);
  const history = new HistoryService(store, bus, { packAfterMs: 30_000 });
  history.start();
  await history.whenMigrated();
  const seconds = (performance.now() - t0) / 1000;
  history.dispose();
  store.dispose();
  log(`# migration took ${round(seconds, 1)} s`);
  return { seconds, eventsPerSecond };
}

export async function runHistoryBench(options: HistoryBenchOptions = {}): Promise<HistoryBenchResult> {
  const log = options.log ?? ((l: string) => console.log(l));
  const scale = options.scale ?? 1;
  const sessions = options.sessions ?? Math.max(10, Math.round(10_000 * scale));
  const events = options.events ?? Math.max(1000, Math.round(1_000_000 * scale));
  const ownDir = !options.dir;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'sb-bench-history-'));
  const jsonlDir = join(dir, 'jsonl');
  mkdirSync(jsonlDir, { recursive: true });
  const dbPath = join(dir, 'switchboard.db');
  const reuse = !!options.reuse && fileSize(dbPath) > 0 && readdirSync(jsonlDir).length > 0;
  if (!reuse) {
    for (const s of ['', '-wal', '-shm']) rmSync(dbPath + s, { force: true });
    for (const f of readdirSync(jsonlDir)) rmSync(join(jsonlDir, f));
  }

  // The store is written as Switchboard wrote it before migration 0013 (plain rows, five prefix indexes), then
  // migrated as the app does at start-up (timed): the figures below are of the migrated store.
  const old = !reuse && !options.fresh;
  let db = old ? openDatabase(dbPath, { migrations: migrations.filter((m) => m.version < 13) }) : openDatabase(dbPath);
  if (old) db.exec('CREATE TABLE store_compaction (session_id TEXT PRIMARY KEY, touched_at INTEGER NOT NULL)'); // written by this MessageLog
  let index = new HistoryIndex(db, INDEX_CAPS, old);
  index.catchUp();
  // One row per message: the generator writes whole sessions at once, while live agents' chunks arrive a
  // few per commit (only floods fill packed rows), so packing here would flatter the store size.
  const messageLog = new MessageLog(db, { maxPacked: 1 });
  messageLog.addIndexer(index.indexer);

  try {
    // ---- generate -------------------------------------------------------------------------------
    const started = performance.now();
    const corpus = new Corpus(42);
    const now = Date.now();
    let total = reuse ? (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM acp_messages').get() as { n: number }).n : 0;
    const insertSession = db.prepare('INSERT INTO sessions (id, agent_id, cwd, title, status, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?)');
    let pending: LogEntry[] = [];
    const flush = (): void => {
      if (pending.length) messageLog.appendMany(pending);
      pending = [];
    };
    for (const { index: i, id, spec, messages: msgs } of reuse ? [] : historySessions(corpus, sessions, events, now)) {
      insertSession.run(id, spec.agentId, spec.cwd, 'idle', spec.createdAt, msgs.at(-1)!.ts);
      let jsonl = '';
      for (const m of msgs) {
        pending.push({ sessionId: id, direction: m.direction, method: m.method, body: m.body, ts: m.ts });
        jsonl += `{"t":${m.ts},"dir":"${m.direction}","msg":${m.body}}\n`;
      }
      writeFileSync(join(jsonlDir, `${id}.jsonl`), jsonl);
      total += msgs.length;
      // The generator streams (one session in memory at a time): its peak memory must not grow with the corpus.
      for (const mark of RSS_MARKS) if (total >= mark && !rssAt.has(mark)) rssAt.set(mark, peakRssMb());
      if (pending.length >= 5000) flush();
      if (i % 1000 === 999) log(`# generated ${i + 1} sessions, ${total} messages (${round((performance.now() - started) / 1000, 1)} s)`);
    }
    flush();
    if (!reuse) {
      rssAt.set(total, peakRssMb());
      log(`# generator peak RSS: ${[...rssAt].map(([n, mb]) => `${mb} MB at ${n.toLocaleString('en')} events`).join(', ')}`);
    }
    const generateSeconds = (performance.now() - started) / 1000;
    index.indexLagging(); // sessions whose last message was still open when their batch was written
    let migration: { seconds: number; eventsPerSecond: number; bytesBefore: number } | null = null;
    if (!reuse && options.fresh) {
      // What the app does once the sessions are quiet; the freed pages are handed back as it goes.
      const t0 = performance.now();
      const packer = new StorePacker(db, 0);
      while (packer.step(index.watermark, 1000).sessions > 0);
      packer.vacuum(Number.MAX_SAFE_INTEGER);
      log(`# packed in ${round((performance.now() - t0) / 1000, 1)} s`);
    }
    if (old) {
      db.exec('DROP TABLE store_compaction');
      db.pragma('wal_checkpoint(TRUNCATE)');
      const bytesBefore = fileSize(dbPath) + fileSize(`${dbPath}-wal`);
      log(`# before migration 0013: store ${bytesBefore} bytes (${Math.round((bytesBefore / total) * 1_000_000)} per million events)`);
      messageLog.dispose();
      index.dispose();
      db.close();
      migration = { ...(await migrateStore(dir, log)), bytesBefore };
      db = openDatabase(dbPath);
      index = new HistoryIndex(db);
      index.catchUp();
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    const storeBytes = fileSize(dbPath) + fileSize(`${dbPath}-wal`);
    log(`# store by table: ${storeBreakdown(db)}`);
    const jsonlBytes = readdirSync(jsonlDir).reduce((a, f) => a + fileSize(join(jsonlDir, f)), 0);
    const entries = (db.prepare('SELECT count(*) AS n FROM history_entries').get() as { n: number }).n;
    const realSessions = (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    log(
      `# ${realSessions} sessions, ${total} messages, ${entries} entries ${reuse ? 'reused' : `generated in ${round(generateSeconds, 1)} s`}; store ${storeBytes} bytes, JSONL ${jsonlBytes} bytes`,
    );

    // ---- search ---------------------------------------------------------------------------------
    const queries = benchQueries(corpus, now);
    const limit = options.limit ?? 20;
    let searchCpuMs = 0;
    const run = (q: (typeof queries)[number]): number => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      // The first page the UI asks for (history.search's default: 20 hits), snippets included.
      index.indexLagging(); // as history.search does before every search
      const res = searchHistory(db, { query: q.query, ...(q.filters ?? {}), limit, perSession: 3, now });
      index.status();
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      searchCpuMs += (c.user + c.system) / 1000;
      if (res.hits.length > limit) throw new Error('limit not applied');
      return ms;
    };
    for (const q of queries) run(q); // warm-up (page cache, statement compilation)
    searchCpuMs = 0;
    // Each query is timed `rounds` times; its time is the best of them (the least disturbed by other processes
    // on a shared machine). p50/p95 are over the 50 queries; the medians are reported too.
    const rounds = options.rounds ?? 5;
    const perQuery = queries.map(() => [] as number[]);
    for (let k = 0; k < rounds; k++) queries.forEach((q, i) => perQuery[i]!.push(run(q)));
    const medianOf = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const best = perQuery.map((xs) => Math.min(...xs));
    const bestSorted = [...best].sort((a, b) => a - b);
    const medians = perQuery.map(medianOf).sort((a, b) => a - b);
    const p50 = percentile(bestSorted, 50);
    const p95 = percentile(bestSorted, 95);
    log(`# ${queries.length} queries, ${limit} hits each; per-query medians over ${rounds} rounds: p50 ${round(percentile(medians, 50))} ms, p95 ${round(percentile(medians, 95))} ms`);
    const slowest = queries
      .map((q, i) => ({ query: q.query + (q.filters ? ` ${JSON.stringify(q.filters)}` : ''), ms: round(best[i]!) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5);

    // ---- grep -----------------------------------------------------------------------------------
    const rg = hasCommand('rg');
    const grepTool = rg ? 'rg -l -i -F, chained per word' : 'grep -r -l -i -F, chained per word';
    // CPU time of finished children (/proc/self/stat cutime + cstime, in clock ticks of 10 ms).
    const childCpuMs = (): number => {
      try {
        const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
        return (Number(f[13]) + Number(f[14])) * 10;
      } catch {
        return Number.NaN;
      }
    };
    // The same query for grep: files containing every word (a quoted phrase as one string), case-insensitive:
    // the first word over all files, each next word over the files still matching (as one would chain greps).
    const grep = (query: string): number => {
      const terms = (query.match(/"[^"]+"|\S+/g) ?? []).map((w) => w.replace(/^"|"$/g, ''));
      const t0 = performance.now();
      let files: string[] | null = null;
      for (const term of terms) {
        if (files !== null && files.length === 0) break;
        const args: string[] = rg ? ['-l', '-i', '-F', '-e', term, ...(files ?? [jsonlDir])] : ['-l', '-i', '-F', '-e', term, ...(files ?? ['-r', jsonlDir])];
        const res: { stdout: string; error?: Error } = spawnSync(rg ? 'rg' : 'grep', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
        if (res.error) throw res.error;
        files = res.stdout.split('\n').filter(Boolean);
      }
      return performance.now() - t0;
    };
    // grep reads every byte for every query: over a large corpus time a sample (every 5th query).
    const sampled = jsonlBytes > 50_000_000 ? queries.map((_, i) => i).filter((i) => i % 5 === 0) : queries.map((_, i) => i);
    grep(queries[0]!.query); // warm the page cache
    let grepSum = 0;
    let searchSum = 0;
    const cpu0 = childCpuMs();
    for (const i of sampled) {
      grepSum += grep(queries[i]!.query);
      searchSum += best[i]!;
    }
    const grepCpuMean = (childCpuMs() - cpu0) / sampled.length;
    const searchCpuMean = searchCpuMs / (rounds * queries.length);
    const speedup = grepSum / searchSum;
    const grepNote =
      sampled.length < queries.length
        ? `# grep timed on ${sampled.length} of ${queries.length} queries (every 5th: it reads all ${jsonlBytes} bytes each time)`
        : `# grep timed on all ${queries.length} queries`;
    log(grepNote);
    log(`# grep (${grepTool}) mean ${round(grepSum / sampled.length)} ms, index mean ${round(searchSum / sampled.length)} ms on the same queries`);
    log(`# CPU time per query (insensitive to other load on the machine): index ${round(searchCpuMean)} ms (all queries, all rounds), grep ${round(grepCpuMean)} ms`);
    log(`# slowest queries (best ms): ${slowest.map((s) => `${s.query} ${s.ms}`).join('; ')}`);

    const bytesPerMillion = Math.round((storeBytes / total) * 1_000_000);
    const jsonlPerMillion = Math.round((jsonlBytes / total) * 1_000_000);
    log(`# the same events as JSONL: ${jsonlPerMillion} bytes per million`);
    if (migration) log(`store.migration_events_per_s: ${Math.round(migration.eventsPerSecond)} events/s`);
    log(`search.p50: ${round(p50)} ms`);
    log(`search.p95: ${round(p95)} ms`);
    log(`search.speedup_vs_grep: ${round(speedup, 1)} ratio`);
    log(`store.bytes_per_million_events: ${bytesPerMillion} bytes`);
    return {
      'search.p50': round(p50),
      'search.p95': round(p95),
      'search.speedup_vs_grep': round(speedup, 1),
      'store.bytes_per_million_events': bytesPerMillion,
      details: {
        sessions: realSessions,
        events: total,
        entries,
        generateSeconds: round(generateSeconds, 1),
        storeBytes,
        jsonlBytes,
        grepTool,
        peakRssMb: [...rssAt],
        grepQueries: sampled.length,
        grepMeanMs: round(grepSum / sampled.length),
        searchMeanMsSameQueries: round(searchSum / sampled.length),
        slowest,
      },
    };
  } finally {
    if (db.open) {
      messageLog.dispose();
      index.dispose();
      db.close();
    }
    if (ownDir && !options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

export default runHistoryBench;
