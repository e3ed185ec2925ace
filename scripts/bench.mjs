// `npm run bench [-- scenario …]`: runs the benchmarks and prints their figures, one per line
// (`name: value unit`). Each scenario compares against a baseline measured in the same run.
// Scenarios: stream (ACP ingest + paint), history (search, restore, store size), agents10 (ten agents),
// checkpoints (snapshots of a large folder vs plain git), idle (ten idle sessions), start (cold start over a
// million-event store), agents10_busy (agents10 on loaded cores), longthread (a 100,000-entry live thread:
// first paint, scrolling, typing while it streams, heap), thread (the thread model folding into a day-long thread),
// import (History → Import of the agents' own session files: rate, rescan, append → searchable), sessions30 (thirty
// sessions of six agents, five streaming: frames, write → paint, idle CPU, memory per session and per tab), remote (an
// SSH host on a loopback sshd against this machine: ingest, keystroke echo, reconnect), worktrees (a worktree session
// of a 20,000-file repository, and its merge, vs plain git), history10m (a year of history: ten million events,
// start, search, size, opening a session; `--events N` for another size; only when named), containers (sessions in
// containers on a real Podman: start, ingest, checkpoint against the same work on this machine, idle memory), budget
// (real-agent sessions: what main and each agent's process tree cost idle and streaming, what idle agents give back
// when put to sleep, waking one against a plain resume).
// The renderer benches print each figure again with Chromium's CPU throttled 4× (`…_throttled4x`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeNative } from './native.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const all = ['containers', 'stream', 'history', 'agents10', 'checkpoints', 'idle', 'start', 'agents10_busy', 'longthread', 'thread', 'import', 'sessions30', 'remote', 'worktrees', 'history10m', 'budget'];
const args = process.argv.slice(2);
// These flags take the next word as their value (`--events 2000000`), which is not a scenario.
const valued = new Set(['--dir', '--events', '--files', '--limit', '--mb', '--scale']);
const flags = [];
const chosen = [];
for (let i = 0; i < args.length; i++) {
  if (valued.has(args[i]) && i + 1 < args.length) flags.push(args[i], args[++i]);
  else if (args[i].startsWith('--')) flags.push(args[i]);
  else chosen.push(args[i]);
}
// history10m runs for hours at its full size: only when named.
const scenarios = chosen.length ? chosen : all.filter((s) => s !== 'history10m');

for (const s of scenarios) {
  if (!all.includes(s)) {
    console.error(`unknown scenario "${s}"; choose from: ${all.join(', ')}`);
    process.exit(2);
  }
}

ensureNodeNative();
// These run without the built app.
const headless = new Set(['containers', 'checkpoints', 'thread', 'import', 'remote', 'worktrees', 'budget']);
if (scenarios.some((s) => !headless.has(s))) {
  // Paint latencies are measured in Chromium against the built app.
  const r = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(1);
}

let failed = false;
for (const s of scenarios) {
  const file = join(root, 'bench', `${s}.ts`);
  if (!existsSync(file)) {
    console.error(`${s}: not implemented yet (${file} missing)`);
    failed = true;
    continue;
  }
  console.error(`── bench ${s}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', file, ...flags], { cwd: root, stdio: 'inherit', env: { ...process.env, SWITCHBOARD_BENCH: '1' } });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
