// `npm run bench -- agents10_busy [--quick]` (issue 16, goal 5): the ten-agent bench (agents10.ts) while both
// cores are kept busy by a background CPU burner this bench starts: one spinning process per core, each
// bounded (it exits by itself after MAX_BURN_S whatever happens to this process) and always stopped at the end.
// Prints agents10.ts's figures as agents10_busy.* (goals: frame_p95 ≤ 25 ms, write_to_paint_p95 ≤ 100 ms).
// The burners run in a session of their own, as a build started in another terminal or another app does: with
// the kernel's autogroup scheduling (on by default on desktop Linux) CPU is shared fairly between sessions
// first. Started in this bench's own session they would share one group with the app server only (Chromium,
// launched by Playwright, has its own), starving the server alone: a set-up no desktop user has.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './support/proc';

const BURNERS = Math.max(2, availableParallelism());
const MAX_BURN_S = 900;
// Spins in slices and checks its deadline, so that it ends even if nobody stops it.
const BURN = `const end = Date.now() + ${MAX_BURN_S * 1000}; let x = 0; while (Date.now() < end) { for (let i = 0; i < 1e6; i++) x += i; }`;

const burners: ChildProcess[] = [];
const stopBurners = () => {
  for (const b of burners) if (b.exitCode === null && b.signalCode === null) b.kill('SIGKILL');
};
process.on('exit', stopBurners);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    stopBurners();
    process.exit(1);
  });
}

let status = 1;
try {
  for (let i = 0; i < BURNERS; i++) burners.push(spawn(process.execPath, ['-e', BURN], { stdio: 'ignore', detached: true }));
  const autogroup = (pid: number | undefined) => {
    try {
      return readFileSync(`/proc/${pid}/autogroup`, 'utf8').trim();
    } catch {
      return 'no autogroup';
    }
  };
  console.log(`# ${BURNERS} CPU burner processes started (pids ${burners.map((b) => b.pid).join(', ')}), each spinning for at most ${MAX_BURN_S} s`);
  console.log(`# scheduling: autogroup ${existsSync('/proc/sys/kernel/sched_autogroup_enabled') ? readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() : 'n/a'}; this bench ${autogroup(process.pid)}, burners ${autogroup(burners[0]?.pid)}`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./agents10.ts', import.meta.url)), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, SWITCHBOARD_BENCH_NAME: 'agents10_busy' },
  });
  const seconds = (Date.now() - t0) / 1000;
  const burnt = burners.reduce((s, b) => s + (b.pid ? cpuMs(b.pid) : 0), 0) / 1000;
  console.log(`# the burners used ${burnt.toFixed(0)} s of CPU over ${seconds.toFixed(0)} s (${((burnt / seconds) * 100).toFixed(0)}% of a core in all)`);
  status = r.status ?? 1;
} finally {
  stopBurners();
}
process.exit(status);
