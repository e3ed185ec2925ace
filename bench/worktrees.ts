// `npm run bench -- worktrees [--quick]`: worktree sessions of a 20,000-file repository.
// worktrees.create_ms: worktrees.create + sessions.create in the new worktree (the agent started; no setup
// command), baseline plain `git worktree add` of the same repository; its floor is that baseline plus the
// agent's own start (sessions.create in the main checkout). worktrees.merge_ms: worktrees.merge (merge
// commit, the base checked out in the main checkout), baseline plain `git merge --no-ff` of the other branch
// there, with the same flags and spawned as the app spawns git (awaited on the same event loop). The merges start
// once the sessions' first snapshots are done, as a finished task's merge does. Same run.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { AppCore } from '../src/main/app-core';
import { AgentRepository } from '../src/main/core/agents/agent-repository';
import { MERGE_COMMIT } from '../src/main/core/worktrees/merge';
import { median } from './support/stats';

const quick = process.argv.includes('--quick');
const FILES = quick ? 2000 : 20_000;
const ROUNDS = quick ? 3 : 7;
/** Merges of each kind: the worktrees' branches are merged again and again (ten new files changed each time). */
const MERGE_ROUNDS = quick ? 6 : 25;

const root = mkdtempSync(join(tmpdir(), 'sb-bench-wt-'));
const repo = join(root, 'project');
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });

function generate(): void {
  mkdirSync(repo, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const sub = join(repo, 'src', `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `file${i}.ts`), `// file ${i}\n${'export const v = 1;\n'.repeat(60)}`);
  }
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Bench');
  git(repo, 'config', 'user.email', 'bench@example.test');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'init');
}

/** Ten files changed and committed in `cwd` (a worktree), and a new file named by `tag`. */
function commitTen(cwd: string, tag: string, seed: number): void {
  for (let k = 0; k < 10; k++) {
    // Files of no other round: the merges never conflict.
    const i = ((seed * 10 + k) * 7) % FILES;
    writeFileSync(join(cwd, 'src', `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`, `file${i}.ts`), `// ${tag} ${k}\n`);
  }
  writeFileSync(join(cwd, `${tag}.txt`), `${tag}\n`);
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-qm', tag);
}

const time = async (fn: () => unknown): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

try {
  console.error(`generating ${FILES} files in ${repo}…`);
  generate();
  const core = new AppCore({ dataDir: join(root, 'data'), transport: 'browser', version: 'bench' });
  const tiny = fileURLToPath(new URL('./support/tiny-agent.mjs', import.meta.url));
  new AgentRepository(core.store.db).upsert({ id: 'tiny', name: 'tiny', source: 'custom', command: process.execPath, args: [tiny], env: {}, cwd: null, version: null, registryId: null });
  const call = async <T>(method: string, params: unknown): Promise<T> => {
    const r = await core.router.invoke(method, params);
    if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
    const v = r.value as { ok?: boolean; value?: unknown; error?: unknown };
    if (v && typeof v === 'object' && 'ok' in v) {
      if (!v.ok) throw new Error(`${method}: ${JSON.stringify(v.error)}`);
      return v.value as T;
    }
    return r.value as T;
  };
  const folder = join(root, 'project.worktrees');

  const ours: number[] = [];
  const plain: number[] = [];
  const agentOnly: number[] = [];
  const createOnly: number[] = [];
  const sessions: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const runOurs = async () => {
      let path = '';
      ours.push(
        await time(async () => {
          const t0 = performance.now();
          path = (await call<{ worktree: { path: string } }>('worktrees.create', { kind: 'new', repo, branch: `bench/ours-${round}`, base: 'main' })).worktree.path;
          createOnly.push(performance.now() - t0);
          sessions.push((await call<{ id: string }>('sessions.create', { agentId: 'tiny', cwd: path })).id);
        }),
      );
    };
    const runGit = async () => plain.push(await time(() => git(repo, 'worktree', 'add', '-q', '-b', `bench/git-${round}`, join(folder, `git-${round}`), 'main')));
    // Each round starts on a quiet app, as a user's next session does: not while the first snapshots of the
    // earlier rounds' 20,000-file worktrees still run (only our side paid for those; git blocks and pauses them).
    await core.checkpoints.idle();
    // Alternate which goes first, so neither always runs on a warmer cache.
    if (round % 2) {
      await runOurs();
      await runGit();
    } else {
      await runGit();
      await runOurs();
    }
    agentOnly.push(await time(async () => sessions.push((await call<{ id: string }>('sessions.create', { agentId: 'tiny', cwd: repo })).id)));
  }
  for (const id of sessions) await call('sessions.close', { sessionId: id });

  // A finished task's merge: its sessions' first snapshots of the folders (20,000 files each) are long done.
  await core.checkpoints.idle();

  // Merges: each round a branch of ten changed files, and main moved on by a commit of its own (a real merge).
  const mergeOurs: number[] = [];
  const mergePlain: number[] = [];
  for (let round = 0; round < MERGE_ROUNDS; round++) {
    const tree = round % ROUNDS;
    const oursPath = join(folder, `bench-ours-${tree}`);
    const gitPath = join(folder, `git-${tree}`);
    commitTen(oursPath, `ours-change-${round}`, round * 2);
    commitTen(gitPath, `git-change-${round}`, round * 2 + 1);
    const runOurs = async () => mergeOurs.push(await time(() => call('worktrees.merge', { path: oursPath, strategy: 'merge', message: `Merge bench/ours-${tree}` })));
    const runGit = async () =>
      mergePlain.push(
        await time(async () => {
          const out = await core.hosts.local.git([...MERGE_COMMIT, '-m', `Merge bench/git-${tree}`, `bench/git-${tree}`], { cwd: repo });
          if (out.code !== 0) throw new Error(`git merge: ${out.stderr}`);
        }),
      );
    if (round % 2) {
      await runOurs();
      await runGit();
    } else {
      await runGit();
      await runOurs();
    }
  }
  if (git(repo, 'status', '--porcelain') !== '') throw new Error('the main checkout is not clean after the merges');
  await core.dispose();

  const r2 = (n: number) => Math.round(n * 100) / 100;
  console.error(`rounds (ms): create ${ours.map(Math.round).join(' ')}; git worktree add ${plain.map(Math.round).join(' ')}; agent start ${agentOnly.map(Math.round).join(' ')}; of create, worktrees.create ${createOnly.map(Math.round).join(' ')}`);
  console.error(`rounds (ms): merge ${mergeOurs.map(Math.round).join(' ')}; git merge ${mergePlain.map(Math.round).join(' ')}`);
  const c = median(ours);
  const g = median(plain);
  const a = median(agentOnly);
  console.log(`worktrees.create_ms: ${Math.round(c)} ms`);
  console.log(`worktrees.create_git_baseline: ${Math.round(g)} ms`);
  console.log(`worktrees.create_floor_ms: ${Math.round(g + a)} ms (git worktree add + the agent's start, ${Math.round(a)} ms)`);
  console.log(`worktrees.create_vs_git: ${r2(c / g)} ratio (goal ≤ 1.5)`);
  console.log(`worktrees.create_vs_floor: ${r2(c / (g + a))} ratio`);
  const m = median(mergeOurs);
  const mg = median(mergePlain);
  console.log(`worktrees.merge_ms: ${Math.round(m)} ms`);
  console.log(`worktrees.merge_git_baseline: ${Math.round(mg)} ms`);
  console.log(`worktrees.merge_vs_git: ${r2(m / mg)} ratio (goal ≤ 1.2)`);
  // Each round's two merges ran back to back: their ratio, less swayed by what else the machine was doing then.
  console.log(`worktrees.merge_vs_git_paired: ${r2(median(mergeOurs.map((o, i) => o / mergePlain[i]!)))} ratio (median of ${mergeOurs.length} rounds; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
} finally {
  rmSync(root, { recursive: true, force: true });
}

// A folder watch holds the event loop (the process keeps one watch of its own: core/host/local/local-watch.ts): the bench ends here.
process.exit(0);
