// `npm run bench -- import [--quick]`: History → Import of the agents' own session files.
//   import.mb_per_s                 first import of a generated corpus in Claude Code's and Codex's formats
//   import.vs_store_ingest          that rate ÷ the store's own ingest of the same ACP messages, same run
//   import.rescan_ms                a rescan with nothing changed; floor: listing the same files (readdir with types + lstat of each file)
//   import.append_to_searchable_ms  a line appended to an open session file → found by search (watching);
//                                   floor: the same append → the watcher's report
//   import.searchable_mb_per_s      the corpus ÷ the time until all of it is searchable (the import and its index pass)
//   import.index_loop_block_max_ms  the event loop's longest hold during the index pass (what the app's UI would wait)
//   search.p95_ms                   searches for words of the corpus, over the imported store (also with --first-only)
//   import.bytes_vs_jsonl           the store (file + WAL after a checkpoint) ÷ the corpus, once the import and the
//                                   packer have settled (the packing the app does once the sessions are quiet)
// The store's ingest is fed the imported messages, read back from the store after the import.
// The corpus is 2 GB in 20,000 files by default (`--quick`: 200 MB in 2,000; `--files N --mb M` for another), 90 % Claude
// Code, 10 % Codex, their words drawn from a Zipf-like vocabulary. A first import of at least 4 MB is written to the log first and indexed in one pass after it
// (`--per-message`: every batch indexed as it is written, as before); import.cpu_ms gives both rates per CPU-second.
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { HistoryService } from '../src/main/core/history/history-service';
import { StorePacker } from '../src/main/core/history/store-packer';
import { HistoryImportService } from '../src/main/core/history-import/import-service';
import { PARSE_THREADS } from '../src/main/core/history-import/parse-pool';
import { LocalHost } from '../src/main/core/host/local/local-host';
import { MessageLog, type LogEntry } from '../src/main/core/store/message-log';
import { StoreService } from '../src/main/core/store/store-service';
import { median, percentile, round1 } from './support/stats';

const quick = process.argv.includes('--quick');
const arg = (name: string): number | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
};
const FILES = arg('--files') ?? (quick ? 2_000 : 20_000);
const TOTAL_BYTES = (arg('--mb') ?? (quick ? 200 : 2000)) * 1e6;
/** `--per-message`: no bulk path (every batch indexed as written), as before it existed. */
const perMessage = process.argv.includes('--per-message');
/** `--first-only`: the first import alone (for profiling). */
const firstOnly = process.argv.includes('--first-only');
const log = (name: string, value: number | string, unit = '') => console.log(`${name}: ${value}${unit ? ` ${unit}` : ''}`);

/**
 * The corpus's vocabulary: VOCABULARY words drawn with a Zipf-like distribution (the k-th commonest about 1/k as
 * often), as in real prose and code, so a query's words range from the commonest (in most entries) to rare ones.
 * The first words are real; the rest are made of syllables.
 */
const COMMON = ['deploy', 'migration', 'cache', 'invoice', 'parser', 'socket', 'render', 'schema', 'retry', 'token', 'worker', 'queue', 'index', 'bundle', 'router'];
const VOCABULARY = 5_000;
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'dor', 'fen', 'gal', 'hub', 'jin', 'mor', 'tas', 'wex', 'yul'];
const WORDS: string[] = [...COMMON];
for (let i = 0; WORDS.length < VOCABULARY; i++) {
  const s = (k: number) => SYLLABLES[k % SYLLABLES.length]!;
  WORDS.push(s(i) + s(Math.floor(i / 20) + 3) + s(Math.floor(i / 400) + 7));
}
let seed = 42;
const rand = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
/** 2^16 slots, each word's share of them ∝ 1/(rank+1): drawing a slot draws a word. */
const ZIPF = (() => {
  const weights = WORDS.map((_, k) => 1 / (k + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const slots = new Uint16Array(65_536);
  let at = 0;
  weights.forEach((w, k) => {
    const end = k === WORDS.length - 1 ? slots.length : Math.min(slots.length, Math.round(at + (w / total) * slots.length));
    slots.fill(k, Math.round(at), end);
    at = Math.max(at + (w / total) * slots.length, end);
  });
  return slots;
})();
const word = (): string => WORDS[ZIPF[rand(65_536)]!]!;
const words = (n: number) => Array.from({ length: n }, word).join(' ');

/** One Claude Code session file of about `bytes`: prompts, replies, Bash calls with output, edits. */
function claudeFile(i: number, bytes: number): string {
  const sid = `0000${i.toString(16)}-aaaa-4bbb-8ccc-${i.toString(16).padStart(12, '0')}`;
  const cwd = `/home/dev/project-${i % 50}`;
  const base = { sessionId: sid, cwd, version: '2.1.34', userType: 'external', isSidechain: false };
  let t = Date.UTC(2025, 11, 1) + i * 3_600_000;
  const ts = () => new Date((t += 1000)).toISOString();
  const lines: string[] = [];
  let size = 0;
  const push = (o: object) => {
    const l = JSON.stringify(o);
    lines.push(l);
    size += l.length + 1;
  };
  let n = 0;
  while (size < bytes) {
    n++;
    push({ ...base, type: 'user', timestamp: ts(), uuid: `u${n}`, message: { role: 'user', content: [{ type: 'text', text: `Please look at the ${words(6)} (turn ${n})` }] } });
    push({ ...base, type: 'assistant', timestamp: ts(), uuid: `a${n}`, message: { role: 'assistant', content: [{ type: 'text', text: `I will check the ${words(12)}.` }] } });
    push({ ...base, type: 'assistant', timestamp: ts(), uuid: `b${n}`, message: { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}_${n}`, name: 'Bash', input: { command: `grep -rn ${word()} src` } }] } });
    push({ ...base, type: 'user', timestamp: ts(), uuid: `r${n}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}_${n}`, content: Array.from({ length: 20 }, (_, k) => `src/${WORDS[k % WORDS.length]}.ts:${k}: ${words(8)}`).join('\n') }] } });
    push({ ...base, type: 'assistant', timestamp: ts(), uuid: `e${n}`, message: { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_e${i}_${n}`, name: 'Edit', input: { file_path: `${cwd}/src/${WORDS[n % WORDS.length]}.ts`, old_string: words(10), new_string: words(10) } }] } });
    push({ ...base, type: 'user', timestamp: ts(), uuid: `f${n}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_e${i}_${n}`, content: 'The file has been updated.' }] } });
  }
  return `${lines.join('\n')}\n`;
}

/** One Codex rollout of about `bytes`. */
function codexFile(i: number, bytes: number): string {
  let t = Date.UTC(2025, 11, 1) + i * 3_600_000;
  const ts = () => new Date((t += 1000)).toISOString();
  const lines = [JSON.stringify({ timestamp: ts(), type: 'session_meta', payload: { id: `cdx-${i}`, cwd: `/home/dev/svc-${i % 20}`, cli_version: '0.63.0' } })];
  let size = lines[0]!.length;
  let n = 0;
  while (size < bytes) {
    n++;
    const add = (type: string, payload: object) => {
      const l = JSON.stringify({ timestamp: ts(), type, payload });
      lines.push(l);
      size += l.length + 1;
    };
    add('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Fix the ${words(6)}` }] });
    add('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `rg ${word()}`] }), call_id: `c${n}` });
    add('response_item', { type: 'function_call_output', call_id: `c${n}`, output: JSON.stringify({ output: words(160), metadata: { exit_code: 0 } }) });
    add('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Done: ${words(20)}` }] });
    add('event_msg', { type: 'token_count', info: null });
  }
  return `${lines.join('\n')}\n`;
}

function makeCorpus(home: string): { bytes: number; files: string[] } {
  const per = Math.round(TOTAL_BYTES / FILES);
  const files: string[] = [];
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const codex = i % 10 === 9;
    const dir = codex ? join(home, '.codex/sessions/2025/12', String(1 + (i % 28)).padStart(2, '0')) : join(home, '.claude/projects', `-home-dev-project-${i % 50}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, codex ? `rollout-2025-12-01T00-00-00-${i}.jsonl` : `session-${i}.jsonl`);
    const text = codex ? codexFile(i, per) : claudeFile(i, per);
    writeFileSync(file, text);
    files.push(file);
    bytes += Buffer.byteLength(text);
  }
  return { bytes, files };
}

/** `--keep-store DIR`: the imported store is written to DIR and kept (for looking into it afterwards). */
const keepStore = process.argv.includes('--keep-store') ? process.argv[process.argv.indexOf('--keep-store') + 1]! : null;

function openStore(keep: string | null = null) {
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'sb-bench-import-store-'));
  const store = new StoreService(dir);
  const messages = new MessageLog(store.db);
  const history = new HistoryService(store, null);
  history.attach(messages);
  const close = (): void => {
    history.dispose();
    messages.dispose();
    store.dispose();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  };
  return { dir, store, messages, history, close };
}

/** CPU milliseconds of each search of the last searchTimes (a loaded machine inflates the wall-clock ones). */
const searchCpu: number[] = [];
/** Wall-clock ms of the searches of the last searchTimes whose query had not been searched before in it. */
const firstSearches: number[] = [];

/** 200 searches of two words each over the store, ms each. */
function searchTimes(s: ReturnType<typeof openStore>): number[] {
  const times: number[] = [];
  searchCpu.length = 0;
  firstSearches.length = 0;
  const seen = new Set<string>();
  for (let k = 0; k < 200; k++) {
    // Half the queries pair two of the commonest words (each in most entries), half draw theirs like the corpus.
    const q = k % 2 === 0 ? `${COMMON[k % COMMON.length]} ${COMMON[(k * 7) % COMMON.length]}` : `${word()} ${word()}`;
    const c = process.cpuUsage();
    const t = performance.now();
    s.history.search({ query: q, limit: 50, perSession: 3 });
    times.push(performance.now() - t);
    const u = process.cpuUsage(c);
    searchCpu.push((u.user + u.system) / 1000);
    if (!seen.has(q)) firstSearches.push(times.at(-1)!);
    seen.add(q);
  }
  return times;
}
// The search keeps the texts of the entries it ranked last (search-texts.ts), which a repeated query ranks again: the
// queries searched for the first time in the run are given apart.
const searchLine = (times: number[]): string =>
  `ms (median ${round1(median(times))}; CPU ms p95 ${round1(percentile(searchCpu, 95))}, median ${round1(median(searchCpu))}; the ${firstSearches.length} queries searched for the first time: p95 ${round1(percentile(firstSearches, 95))} ms, median ${round1(median(firstSearches))})`;

/**
 * The least a rescan must do to see an appended line: every folder read (with its entries' types) and every file's
 * lstat (its size and time). (Node 20's `readdirSync(…, { recursive: true })` stats every entry once more itself.)
 */
function listFloor(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) listFloor(`${dir}/${e.name}`);
    else lstatSync(`${dir}/${e.name}`);
  }
}

const fileSize = (p: string): number => (existsSync(p) ? statSync(p).size : 0);

/** Packs the imported sessions as the app does once they are quiet, then prints the store's size against the corpus. */
function storeSize(s: ReturnType<typeof openStore>, corpusBytes: number): void {
  const db = s.store.db;
  const packer = new StorePacker(db, 0);
  const watermark = (): number => (db.prepare('SELECT coalesce(max(id), 0) AS n FROM acp_messages').get() as { n: number }).n;
  while (packer.step(watermark(), 1000).sessions > 0);
  packer.vacuum(Number.MAX_SAFE_INTEGER);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const file = db.name;
  const bytes = fileSize(file) + fileSize(`${file}-wal`);
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const free = (db.pragma('freelist_count', { simple: true }) as number) * pageSize;
  const tables = db.prepare('SELECT name, sum(pgsize) AS bytes, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 8').all() as Array<{ name: string; bytes: number; unused: number }>;
  log('import.bytes_vs_jsonl', Math.round((bytes / corpusBytes) * 100) / 100, `ratio (store ${round1(bytes / 1e6)} MB, corpus ${round1(corpusBytes / 1e6)} MB; free pages ${round1(free / 1e6)} MB; ${tables.map((t) => `${t.name} ${round1(t.bytes / 1e6)} MB (${round1(t.unused / 1e6)} unused)`).join(', ')})`);
}

const home = mkdtempSync(join(tmpdir(), 'sb-bench-import-home-'));
try {
  const t0 = performance.now();
  const corpus = makeCorpus(home);
  log('import.corpus', `${FILES} files, ${round1(corpus.bytes / 1e6)} MB, made in ${round1((performance.now() - t0) / 1000)} s`);

  // The floor of any import: reading every file and parsing each line's JSON, in this thread (nothing converted or written).
  const f0 = performance.now();
  for (const file of corpus.files) for (const l of readFileSync(file, 'utf8').split('\n')) if (l) JSON.parse(l);
  const floorMbps = corpus.bytes / 1e6 / ((performance.now() - f0) / 1000);

  // ── first import
  const s = openStore(keepStore);
  await s.history.whenIndexed();
  const importer = new HistoryImportService({
    db: () => s.store.db,
    log: () => s.messages,
    home,
    env: {},
    keep: () => ['claude-code', 'codex'],
    agentFor: () => null,
    deleteSessions: () => {},
    ...(perMessage ? {} : { bulk: () => s.history.bulkWrite() }),
    watch: (root, onEvent) => new LocalHost().watch(root, onEvent),
  });
  const cpuMs = (c: NodeJS.CpuUsage): number => Math.round((c.user + c.system) / 1000);
  /** CPU ms of the main thread alone (Linux: its task's utime + stime), which does every write; NaN elsewhere. */
  const mainThreadCpuMs = (): number => {
    try {
      const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      return NaN;
    }
  };
  const main0 = mainThreadCpuMs();
  const a = performance.now();
  const cpu0 = process.cpuUsage();
  importer.start(['claude-code', 'codex']);
  await importer.settled();
  const importMs = performance.now() - a;
  const importCpu = cpuMs(process.cpuUsage(cpu0));
  const importMainCpu = mainThreadCpuMs() - main0;
  // The index pass must leave the event loop free for the app: its longest hold of the loop, sampled every ms.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  // On a loaded machine the loop also waits for the scheduler: each step of the pass is timed in CPU too (no thread but
  // this one works then), which gives the hold it makes on a free core.
  const steps = { wallMax: 0, cpuMax: 0, count: 0 };
  const timed = <A extends unknown[], R>(fn: (...a: A) => R) => (...a: A): R => {
    const w = performance.now();
    const c = process.cpuUsage();
    try {
      return fn(...a);
    } finally {
      steps.count++;
      steps.wallMax = Math.max(steps.wallMax, performance.now() - w);
      steps.cpuMax = Math.max(steps.cpuMax, cpuMs(process.cpuUsage(c)));
    }
  };
  const index = s.history.index();
  index.catchUp = timed(index.catchUp.bind(index));
  s.store.checkpoint = timed(s.store.checkpoint.bind(s.store));
  const indexCpu0 = process.cpuUsage();
  loop.enable();
  await s.history.whenIndexed();
  loop.disable();
  const indexCpu = cpuMs(process.cpuUsage(indexCpu0));
  const searchableMs = performance.now() - a;
  const searchableCpu = cpuMs(process.cpuUsage(cpu0));
  // CPU time is what a loaded machine does not inflate: the rate it allows on a free core, beside the wall-clock one.
  log('import.cpu_ms', importCpu, `ms (${round1(corpus.bytes / 1e6 / (importCpu / 1000))} MB per CPU-second; the main thread, which writes, ${Math.round(importMainCpu)} ms: ${round1(corpus.bytes / 1e6 / (importMainCpu / 1000))} MB per its CPU-second); with its index pass ${searchableCpu} ms (${round1(corpus.bytes / 1e6 / (searchableCpu / 1000))} MB per CPU-second)`);
  const status = importer.status();
  const mbps = corpus.bytes / 1e6 / (importMs / 1000);
  const searchableMbps = corpus.bytes / 1e6 / (searchableMs / 1000);
  log('import.first_ms', Math.round(importMs), `ms (every session listed${perMessage ? ', indexed message by message' : ', indexed in one pass after'})`);
  log('import.mb_per_s', round1(mbps), `MB/s (floor, reading the files and parsing their JSON in one thread: ${round1(floorMbps)} MB/s; ${PARSE_THREADS} parsing threads, ${availableParallelism()} cores)`);
  log('import.all_searchable_ms', Math.round(searchableMs), 'ms');
  log('import.searchable_mb_per_s', round1(searchableMbps), `MB/s (import and its index pass; goal 30; floor, reading the files and parsing their JSON in one thread: ${round1(floorMbps)} MB/s; the index pass alone ${Math.round(searchableMs - importMs)} ms, ${indexCpu} CPU ms: ${round1(corpus.bytes / 1e6 / (indexCpu / 1000))} MB per its CPU-second)`);
  log('import.index_loop_block_max_ms', round1(loop.max / 1e6), `ms (the event loop's longest hold during the index pass; goal 100; p99 of its delays ${round1(loop.percentile(99) / 1e6)} ms; its longest step of ${steps.count}, a transaction or a checkpoint: ${round1(steps.wallMax)} ms, ${steps.cpuMax} CPU ms)`);
  log('import.sessions', status.sessions);
  storeSize(s, corpus.bytes);
  if (process.argv.includes('--search-only')) {
    // `--search-only`: the searches alone after the first import, with their CPU profile in /tmp/search.cpuprofile.
    const { Session } = await import('node:inspector/promises');
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const times = searchTimes(s);
    const { profile } = await session.post('Profiler.stop');
    (await import('node:fs')).writeFileSync(join(tmpdir(), 'search.cpuprofile'), JSON.stringify(profile));
    log('search.p95_ms', round1(percentile(times, 95)), searchLine(times));
  }
  if (firstOnly && !process.argv.includes('--search-only')) {
    const times = searchTimes(s);
    log('search.p95_ms', round1(percentile(times, 95)), searchLine(times));
  }
  if (firstOnly || process.argv.includes('--search-only')) {
    // (process.exit skips the finally below: the corpus and the store are removed here.)
    importer.dispose();
    s.close();
    rmSync(home, { recursive: true, force: true });
    process.exit(0);
  }

  // ── the store's own ingest of the same messages (a fresh store, the same sessions)
  // Read back from the imported store once the import is measured (kept during it, they would have made the import's
  // heap, and its GC, as large as the corpus), a batch at a time (the whole corpus at once does not fit a 2 GB run's
  // heap), parsed as a live session's messages come (the indexer takes them parsed). Only the appends are timed.
  const sessionIds = s.store.db.prepare('SELECT id FROM sessions WHERE imported_from IS NOT NULL ORDER BY created_at').pluck().all() as string[];
  const b = openStore();
  await b.history.whenIndexed();
  const insert = b.store.db.prepare("INSERT INTO sessions (id, agent_id, cwd, status, created_at, updated_at) VALUES (?, 'bench', '/w', 'closed', 0, 0)");
  for (const id of sessionIds) insert.run(id);
  let storeMs = 0;
  let batch: LogEntry[] = [];
  const append = (): void => {
    const c = performance.now();
    b.messages.appendMany(batch);
    storeMs += performance.now() - c;
    batch = [];
  };
  for (const id of sessionIds) {
    for (const m of s.messages.read(id)) {
      batch.push({ sessionId: m.sessionId, direction: m.direction, method: m.method, body: m.body, ts: m.ts, parsed: JSON.parse(m.body) });
      if (batch.length === 4096) append();
    }
  }
  if (batch.length) append();
  const storeMbps = corpus.bytes / 1e6 / (storeMs / 1000);
  log('store.ingest_same_events_mb_per_s', round1(storeMbps), 'MB/s');
  log('import.vs_store_ingest', round1(mbps / storeMbps));
  b.close();

  // ── rescan with nothing changed, against a plain listing of the same files
  const rescans: number[] = [];
  const listings: number[] = [];
  for (let k = 0; k < 5; k++) {
    const r = performance.now();
    importer.start(['claude-code', 'codex']);
    await importer.settled();
    rescans.push(performance.now() - r);
    const l = performance.now();
    for (const root of [join(home, '.claude/projects'), join(home, '.codex/sessions')]) listFloor(root);
    listings.push(performance.now() - l);
  }
  log('import.rescan_ms', round1(median(rescans)), `ms (floor, readdir + lstat of the same files: ${round1(median(listings))} ms)`);

  // ── append → searchable, with the stores watched
  importer.keepUp();
  await new Promise((r) => setTimeout(r, 1000));
  await importer.settled();
  const target = corpus.files[0]!;
  const lat: number[] = [];
  const floor: number[] = [];
  const watchFloor = await new LocalHost().watch(join(home, '.claude/projects'), () => {
    if (watchStart) floor.push(performance.now() - watchStart);
    watchStart = 0;
  });
  let watchStart = 0;
  for (let k = 0; k < 10; k++) {
    const word = `zq${k}x${Date.now().toString(36)}`;
    const line = JSON.stringify({ type: 'user', sessionId: 'x', cwd: '/home/dev/project-0', timestamp: new Date().toISOString(), message: { role: 'user', content: `append ${word}` } });
    const w = performance.now();
    watchStart = w;
    appendFileSync(target, `${line}\n`);
    for (;;) {
      if (s.history.search({ query: word, limit: 5, perSession: 1 }).hits.length) break;
      if (performance.now() - w > 10_000) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    lat.push(performance.now() - w);
    await new Promise((r) => setTimeout(r, 300));
  }
  await watchFloor.dispose();
  log('import.append_to_searchable_ms', round1(median(lat)), `ms median, p95 ${round1(percentile(lat, 95))} (floor, append → watcher report: ${round1(median(floor))} ms)`);

  // ── search over the imported corpus
  const times = searchTimes(s);
  log('search.p95_ms', round1(percentile(times, 95)), searchLine(times));
  importer.dispose();
  s.close();
} finally {
  rmSync(home, { recursive: true, force: true });
}

// A folder watch holds the event loop (the process keeps one watch of its own: core/host/local/local-watch.ts): the bench ends here.
process.exit(0);
