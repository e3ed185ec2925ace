// `npm run bench -- checkpoints [--quick]`: checkpoints of a 20,000-file tree (~200 MB) with a .gitignored
// node_modules of 30,000 more files, read whole (no session open, so no watch). First checkpoint, a checkpoint
// after 10 files changed, listing that turn's changes, and the bytes one such checkpoint adds; baseline:
// `git add -A && git write-tree` on a copy of the same tree with its own index, in the same run. Also how long
// a turn waits on its checkpoints (`checkpoints.turn_start_wait`: turns with no watch, whose "before" reads the
// whole folder, beside a watched turn's) and the whole-folder read against git (`checkpoints.full_scan_vs_git`).
// Then a 100,000-file tree (~200 MB) with a session open on it (watched: snapshots read what changed): what the
// first turn waits for when the session opened 1 s earlier, and a checkpoint after 10 files changed, against
// the same git baseline and against a checkpoint with nothing changed (the floor). '#': where that checkpoint's
// time goes (the watch catching up, the snapshot, the trees); SWITCHBOARD_BENCH_PROFILE=file.cpuprofile: a CPU
// profile of those rounds. `--big-only` skips the 20,000-file tree, `--small-only` the 100,000-file one.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventBus } from '../src/main/core/base/event-bus';
import { CheckpointService } from '../src/main/core/checkpoints/checkpoint-service';
import { LocalHost } from '../src/main/core/host/local/local-host';
import { FolderFeed } from '../src/main/core/checkpoints/folder-changes';
import { TreeIndex } from '../src/main/core/checkpoints/git-objects';
import { ShadowRepo } from '../src/main/core/checkpoints/shadow-repo';
import { StoreService } from '../src/main/core/store/store-service';
import { median } from './support/stats';

const quick = process.argv.includes('--quick');
/** SWITCHBOARD_BENCH_PROFILE=file.cpuprofile: this process's CPU profile of the 100k tree's measured rounds. */
const profileTo = process.env.SWITCHBOARD_BENCH_PROFILE ?? '';
const FILES = quick ? 2000 : 20_000;
const FILE_BYTES = 10 * 1024;
const IGNORED = quick ? 3000 : 30_000;
const ROUNDS = 11;

const root = mkdtempSync(join(tmpdir(), 'sb-bench-cp-'));
const work = join(root, 'work');
const copy = join(root, 'copy');
const dataDir = join(root, 'data');

/** Source-like text: lines of words, compressible as code is. */
function text(seed: number, bytes: number): string {
  const words = randomBytes(64).toString('hex').match(/.{1,6}/g)!;
  let s = `// file ${seed}\n`;
  let i = 0;
  while (s.length < bytes) s += `const v${i++} = ${words[i % words.length]}(${words[(i * 7) % words.length]}, ${seed});\n`;
  return s;
}

function generate(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  for (let i = 0; i < FILES; i++) {
    const sub = join(dir, 'src', `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `file${i}.ts`), text(i, FILE_BYTES));
  }
  for (let i = 0; i < IGNORED; i++) {
    const sub = join(dir, 'node_modules', `dep${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `index${i}.js`), `module.exports = ${i};\n`);
  }
}

function changeTen(dir: string, round: number): void {
  for (let k = 0; k < 10; k++) {
    const i = (round * 997 + k * 1931) % FILES;
    const path = join(dir, 'src', `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`, `file${i}.ts`);
    writeFileSync(path, `${text(i, FILE_BYTES)}// round ${round}\n`);
  }
}

async function dirSize(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true });
  const sizes = await Promise.all(entries.map(async (e) => (e.isDirectory() ? dirSize(join(dir, e.name)) : e.isFile() ? (await stat(join(dir, e.name))).size : 0)));
  return sizes.reduce((a, b) => a + b, 0);
}

const time = async (fn: () => unknown): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

const gitEnv = { ...process.env, GIT_DIR: join(copy, '.git'), GIT_WORK_TREE: copy, GIT_INDEX_FILE: join(copy, '.git', 'index') };
const plainGit = (): void => {
  const add = spawnSync('git', ['add', '-A'], { cwd: copy, env: gitEnv });
  if (add.status !== 0) throw new Error(`git add failed: ${add.stderr.toString()}`);
  execFileSync('git', ['write-tree'], { cwd: copy, env: gitEnv });
};

const BIG = quick ? 10_000 : 100_000;
const BIG_BYTES = 2 * 1024;

function generateBig(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < BIG; i++) {
    const sub = join(dir, 'src', `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `file${i}.ts`), text(i, BIG_BYTES));
  }
}

function changeTenBig(dir: string, round: number): void {
  for (let k = 0; k < 10; k++) {
    const i = (round * 9973 + k * 19_031) % BIG;
    writeFileSync(join(dir, 'src', `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`, `file${i}.ts`), `${text(i, BIG_BYTES)}// round ${round}\n`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Where a checkpoint's wall time goes: the time spent inside a few of the checkpoint code's steps, summed
 * while `on`: the watch's catching up (FolderFeed.take: the sync file written and reported back), the
 * snapshot (ShadowRepo.snapshot: reading the changed paths, hashing, writing objects), and within it the trees
 * rewritten (TreeIndex.write). Wrapped here, in the bench only.
 */
const phases = { on: false, take: 0, snapshot: 0, trees: 0 };
function timePhase<T extends object>(proto: T, method: keyof T & string, phase: 'take' | 'snapshot' | 'trees'): void {
  const original = proto[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  (proto as Record<string, unknown>)[method] = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
    const t0 = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      if (phases.on) phases[phase] += performance.now() - t0;
    }
  };
}
timePhase(FolderFeed.prototype, 'take', 'take');
timePhase(ShadowRepo.prototype, 'snapshot', 'snapshot');
timePhase(TreeIndex.prototype, 'write', 'trees');
/** One measured checkpoint and its phases. */
async function phased(fn: () => Promise<unknown>): Promise<{ ms: number; take: number; snapshot: number; trees: number }> {
  Object.assign(phases, { on: true, take: 0, snapshot: 0, trees: 0 });
  const ms = await time(fn);
  phases.on = false;
  return { ms, take: phases.take, snapshot: phases.snapshot, trees: phases.trees };
}

/** The 100,000-file tree with a session open on it. */
async function big(): Promise<void> {
  const bigRoot = join(root, 'big');
  const bigWork = join(bigRoot, 'work');
  const bigCopy = join(bigRoot, 'copy');
  const tiny = join(bigRoot, 'tiny');
  console.error(`generating ${BIG} files in ${bigWork}…`);
  generateBig(bigWork);
  mkdirSync(tiny);
  for (let i = 0; i < 10; i++) writeFileSync(join(tiny, `f${i}.txt`), `${i}\n`);
  execFileSync('cp', ['-a', bigWork, bigCopy]);
  execFileSync('git', ['init', '-q'], { cwd: bigCopy });
  const env = { ...process.env, GIT_DIR: join(bigCopy, '.git'), GIT_WORK_TREE: bigCopy, GIT_INDEX_FILE: join(bigCopy, '.git', 'index') };
  const git = (): void => {
    const add = spawnSync('git', ['add', '-A'], { cwd: bigCopy, env });
    if (add.status !== 0) throw new Error(`git add failed: ${add.stderr.toString()}`);
    execFileSync('git', ['write-tree'], { cwd: bigCopy, env });
  };
  const gitFirst = await time(git);

  const bigData = join(bigRoot, 'data');
  const store = new StoreService(bigData);
  const svc = new CheckpointService(store, new EventBus(), bigData, { autoPrune: false, host: new LocalHost() });
  // The floor: a first turn in a folder whose first snapshot is done (what any turn waits for at least).
  await svc.sessionOpened('tiny', [tiny]);
  await svc.idle();
  const floorTurn = { sessionId: 'tiny', promptId: randomUUID(), roots: [tiny] };
  const firstTurnFloor = await time(() => svc.turnStarting(floorTurn));
  svc.turnEnded(floorTurn);
  await svc.idle();

  const opened = performance.now();
  await svc.sessionOpened('bench', [bigWork]);
  await sleep(1000);
  const turn = { sessionId: 'bench', promptId: randomUUID(), roots: [bigWork] };
  const firstTurnWait = await time(() => svc.turnStarting(turn));
  await svc.idle();
  const firstSnapshot = performance.now() - opened;
  svc.turnEnded(turn);
  await svc.idle();

  const ours: number[] = [];
  const theirs: number[] = [];
  const floor: number[] = [];
  const rightAfter: number[] = [];
  const cpu: NodeJS.CpuUsage[] = [];
  const split: Array<Awaited<ReturnType<typeof phased>>> = [];
  const measure = async (): Promise<number> => {
    const r = await phased(() => svc.checkpoint(bigWork));
    split.push(r);
    return r.ms;
  };
  const profiler = profileTo ? new Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  for (let round = 1; round <= ROUNDS; round++) {
    changeTenBig(bigWork, round);
    changeTenBig(bigCopy, round);
    // The folder is quiet for a moment before a prompt is sent (a person types it).
    await sleep(600);
    const cpu0 = process.cpuUsage();
    if (round % 2) {
      ours.push(await measure());
      cpu.push(process.cpuUsage(cpu0));
      theirs.push(await time(git));
    } else {
      theirs.push(await time(git));
      const c0 = process.cpuUsage();
      ours.push(await measure());
      cpu.push(process.cpuUsage(c0));
    }
    await sleep(600);
    floor.push(await time(() => svc.checkpoint(bigWork)));
    changeTenBig(bigWork, round + 1000);
    rightAfter.push(await time(() => svc.checkpoint(bigWork)));
  }
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(profileTo, JSON.stringify(profile));
    profiler.disconnect();
    console.log(`# this process's CPU profile of the 100k rounds (git's spawnSync and the sleeps included): ${profileTo}`);
  }
  // A turn changing 10 files, from its end to its recorded changes (the after-checkpoint is checked against
  // the whole folder's stat: nobody waits for it, but it is what a turn costs).
  const t2 = { sessionId: 'bench', promptId: randomUUID(), roots: [bigWork] };
  await svc.turnStarting(t2);
  changeTenBig(bigWork, ROUNDS + 1);
  svc.turnEnded(t2);
  const endToRecorded = await time(() => svc.idle());
  const turns = await svc.listTurns('bench');
  if (turns.at(-1)?.changes?.files.length !== 10) throw new Error(`expected 10 changed files, got ${turns.at(-1)?.changes?.files.length}`);
  await svc.dispose();
  store.dispose();

  console.error(`100k rounds (ms): ours ${ours.map(Math.round).join(' ')}; git ${theirs.map(Math.round).join(' ')}; nothing changed ${floor.map(Math.round).join(' ')}; right after ${rightAfter.map(Math.round).join(' ')}`);
  const inc = median(ours);
  const n = `${BIG / 1000}k`;
  const mid = (f: (r: (typeof split)[number]) => number): number => Math.round(median(split.map(f)));
  console.log(
    `# where a 10-change checkpoint's time goes (medians, ms): the watch catching up (sync file written and reported) ${mid((r) => r.take)}; the snapshot ${mid((r) => r.snapshot)} (of which the trees rewritten ${mid((r) => r.trees)}); the rest (the checkpoint's queue, its ref and row) ${mid((r) => r.ms - r.take - r.snapshot)}`,
  );
  console.log(`checkpoints.incremental_${n}: ${Math.round(inc)} ms (floor, nothing changed: ${Math.round(median(floor))} ms)`);
  console.log(`checkpoints.incremental_${n}_cpu: ${Math.round(median(cpu.map((c) => (c.user + c.system) / 1000)))} ms of this process's CPU (the machine's load does not count here)`);
  console.log(`checkpoints.incremental_${n}_git_baseline: ${Math.round(median(theirs))} ms`);
  console.log(`checkpoints.incremental_${n}_vs_git: ${Math.round((inc / median(theirs)) * 1000) / 1000} ratio`);
  console.log(`checkpoints.incremental_${n}_right_after_changes: ${Math.round(median(rightAfter))} ms (the watch batches events for 50 ms)`);
  console.log(`checkpoints.first_turn_wait_${n}: ${Math.round(firstTurnWait)} ms (floor, a folder already snapshotted: ${Math.round(firstTurnFloor)} ms)`);
  console.log(`checkpoints.first_snapshot_${n}: ${Math.round(firstSnapshot)} ms in the background (git add -A, first: ${Math.round(gitFirst)} ms)`);
  console.log(`checkpoints.turn_end_to_recorded_${n}: ${Math.round(endToRecorded)} ms (checked against the whole folder's stat)`);
}

/** The 20,000-file tree, read whole (no session open, so no watch). */
async function small(): Promise<void> {
  console.error(`generating ${FILES} files (+${IGNORED} ignored) in ${root}…`);
  generate(work);
  execFileSync('cp', ['-a', work, copy]);
  execFileSync('git', ['init', '-q'], { cwd: copy });

  const store = new StoreService(dataDir);
  const svc = new CheckpointService(store, new EventBus(), dataDir, { autoPrune: false, host: new LocalHost() });
  const first = await time(() => svc.checkpoint(work));
  const gitFirst = await time(plainGit);

  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    changeTen(work, round);
    changeTen(copy, round);
    // Alternate which goes first, so neither always runs on a warmer cache.
    if (round % 2) {
      ours.push(await time(() => svc.checkpoint(work)));
      theirs.push(await time(plainGit));
    } else {
      theirs.push(await time(plainGit));
      ours.push(await time(() => svc.checkpoint(work)));
    }
  }

  // A turn that changes 10 files: what the turn waits on, the bytes it adds, and listing its changes.
  const shadow = join(dataDir, 'checkpoints', (await svc.folderList())[0]!.id);
  const turn = { sessionId: 'bench', promptId: randomUUID(), roots: [work] };
  const startWait = await time(() => svc.turnStarting(turn));
  // The prompt went; an agent's first write comes after its model's reply (here: once the snapshot is done).
  await svc.idle();
  const bytesBefore = await dirSize(shadow);
  changeTen(work, ROUNDS + 1);
  // What the turn's end waits for: turnEnded runs inside finishTurn, before the turn_end event is emitted.
  const t0 = performance.now();
  svc.turnEnded(turn);
  const endBlock = performance.now() - t0;
  const endToRecorded = await time(() => svc.idle());
  const bytesPerCheckpoint = (await dirSize(shadow)) - bytesBefore;
  const listChanges = await time(() => svc.listTurns('bench'));
  const [t] = await svc.listTurns('bench');
  if (t?.changes?.files.length !== 10) throw new Error(`expected 10 changed files, got ${t?.changes?.files.length}`);

  // Turns in the folder with no watch (each after the session closed, 10 files changed meanwhile): how long
  // each waits for its "before" snapshot (a whole-folder read), against the floor: a turn right after, watched.
  const waits: number[] = [];
  const floors: number[] = [];
  let late = 0;
  for (let round = 0; round < 5; round++) {
    svc.sessionClosed('bench');
    changeTen(work, 100 + round);
    const cold = { sessionId: 'bench', promptId: randomUUID(), roots: [work] };
    waits.push(await time(() => svc.turnStarting(cold)));
    await svc.idle();
    changeTen(work, 200 + round);
    svc.turnEnded(cold);
    await svc.idle();
    const warm = { sessionId: 'bench', promptId: randomUUID(), roots: [work] };
    floors.push(await time(() => svc.turnStarting(warm)));
    await svc.idle();
    svc.turnEnded(warm);
    await svc.idle();
  }
  for (const x of await svc.listTurns('bench')) if (x.beforeLate) late++;

  await svc.dispose();
  store.dispose();

  console.error(`rounds (ms): ours ${ours.map(Math.round).join(' ')}; git ${theirs.map(Math.round).join(' ')}`);
  const inc = median(ours);
  console.log(`checkpoints.first: ${Math.round(first)} ms`);
  console.log(`checkpoints.first_git_baseline: ${Math.round(gitFirst)} ms`);
  console.log(`checkpoints.incremental: ${Math.round(inc)} ms`);
  console.log(`checkpoints.incremental_git_baseline: ${Math.round(median(theirs))} ms`);
  console.log(`checkpoints.incremental_vs_git: ${Math.round((inc / median(theirs)) * 100) / 100} ratio`);
  console.log(`checkpoints.full_scan_vs_git: ${Math.round((inc / median(theirs)) * 100) / 100} ratio (a whole-folder read, no watch: ${Math.round(inc)} ms; floor, git add -A && git write-tree on the same tree: ${Math.round(median(theirs))} ms; goal ≤ 1.5)`);
  console.log(`checkpoints.list_changes: ${Math.round(listChanges)} ms`);
  console.log(`checkpoints.bytes_per_checkpoint: ${bytesPerCheckpoint} bytes`);
  console.log(
    `checkpoints.turn_start_wait: ${Math.round(Math.max(startWait, ...waits))} ms at most, median ${Math.round(median([startWait, ...waits]))} ms over ${waits.length + 1} turns with no watch (floor, a watched turn right after: ${Math.round(median(floors))} ms; goal ≤ 100; turns whose "before" was marked late: ${late})`,
  );
  console.log(`checkpoints.turn_end_blocking: ${Math.round(endBlock * 100) / 100} ms`);
  console.log(`checkpoints.turn_end_to_recorded: ${Math.round(endToRecorded)} ms`);
}

try {
  if (!process.argv.includes('--big-only')) await small();
  if (!process.argv.includes('--small-only')) await big();
} finally {
  rmSync(root, { recursive: true, force: true });
}

// A folder watch holds the event loop (the process keeps one watch of its own: core/host/local/local-watch.ts): the bench ends here.
process.exit(0);
