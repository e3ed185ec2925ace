// `npm run bench -- remote [--quick]`: an SSH host (SshHost) on the loopback sshd of test/support/sshd.ts
// against this machine (LocalHost), the same work in the same run:
//   remote.ingest_vs_local      a process streaming ACP-sized JSON lines: local rate ÷ remote rate (goal ≤ 1.5)
//   remote.keystroke_echo_p95_ms  a key into a pty running `cat` → its echo, on the host; floor: a local pty
//   remote.reconnect_ms         the ControlMaster killed → the host connected again, processes reattached (goal ≤ 3,000)
//   remote.first_reply_overhead_ms  a prompt → the reply's first chunk, host minus local (bench/remote-first-reply.ts; goal ≤ 30)
//   remote.checkpoint_incremental_vs_local  a checkpoint of a watched folder after 10 files changed, on the host
//                               (taken there by its helper) ÷ the same of a local folder (goal ≤ 1.5)
// Needs root (the test user) and /usr/sbin/sshd; says why and exits otherwise.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventBus } from '../src/main/core/base/event-bus';
import { CheckpointService } from '../src/main/core/checkpoints/checkpoint-service';
import type { Host } from '../src/main/core/host/host';
import { StoreService } from '../src/main/core/store/store-service';
import { LocalHost } from '../src/main/core/host/local/local-host';
import { SshHost } from '../src/main/core/host/ssh/ssh-host';
import { sshdSkipReason, startSshd } from '../test/support/sshd';
import { median, percentile, round1 } from './support/stats';
import { benchFirstReply } from './remote-first-reply';

const quick = process.argv.includes('--quick');
const LINES = quick ? 20_000 : 100_000;
const KEYS = quick ? 50 : 200;
const DROPS = quick ? 3 : 7;
const REPLIES = quick ? 10 : 40;
const CP_FILES = quick ? 1000 : 5000;
const CP_ROUNDS = quick ? 5 : 9;

const skip = sshdSkipReason();
if (skip) {
  console.error(`remote: skipped: ${skip}`);
  process.exit(0);
}

/** Seconds for a process on `host` to stream LINES JSON lines of ~300 bytes, all read here. */
async function ingest(host: Host): Promise<{ ms: number; bytes: number }> {
  const script = `const l=JSON.stringify({jsonrpc:'2.0',method:'session/update',params:{sessionId:'s',update:{sessionUpdate:'agent_message_chunk',content:{type:'text',text:'x'.repeat(200)}}}})+'\\n';let i=0;const w=()=>{while(i<${LINES}){i++;if(!process.stdout.write(l))return process.stdout.once('drain',w)}};w();`;
  const started = performance.now();
  const p = host.spawn(['node', '-e', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdin: 'ignore' });
  let bytes = 0;
  p.stdout.on('data', (b: Buffer) => (bytes += b.length));
  const exit = await p.closed;
  if (exit.code !== 0) throw new Error(`the streaming process failed: ${JSON.stringify(exit)}`);
  return { ms: performance.now() - started, bytes };
}

/** Latencies of single keys into a pty running cat (its echo is what comes back first). */
async function echo(host: Host, cwd: string): Promise<number[]> {
  const pty = host.openPty(['cat'], { cwd, env: { PATH: '/usr/bin:/bin', TERM: 'xterm-256color' }, cols: 80, rows: 24 });
  let waiting: ((d: string) => void) | null = null;
  pty.onData((d) => waiting?.(d));
  const key = (k: string) => new Promise<void>((resolve) => {
    let got = '';
    waiting = (d) => {
      got += d;
      if (got.includes(k)) {
        waiting = null;
        resolve();
      }
    };
    pty.write(k);
  });
  await key('r'); // ready
  const times: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    const k = String.fromCharCode(97 + (i % 26));
    const t = performance.now();
    await key(k);
    times.push(performance.now() - t);
  }
  await pty.dispose();
  return times;
}

/** A source-like tree of CP_FILES files of ~2 KB in 50 folders. */
function tree(dir: string): void {
  for (let i = 0; i < CP_FILES; i++) {
    const sub = join(dir, `d${i % 50}`);
    if (i < 50) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `// file ${i}\n${`export const v${i} = ${i};\n`.repeat(90)}`);
  }
}

/**
 * Checkpoints of a watched folder on `hostId` after 10 files changed there (written through the host), and
 * with nothing changed; a turn changing 10 files is checked to list them.
 */
async function checkpointRounds(svc: CheckpointService, host: Host, hostId: string, folder: string, round: number): Promise<{ changed: number; nothing: number }> {
  const files = await host.files([folder]);
  for (let i = 0; i < 10; i++) await files.writeFile(join(folder, `d${i}`, `f${i}.ts`), `// round ${round}\n${'x'.repeat(2000)}\n`);
  // The folder is quiet for a moment before a prompt is sent (a person types it).
  await new Promise((r) => setTimeout(r, 300));
  let t = performance.now();
  await svc.checkpoint(folder, 'manual', hostId);
  const changed = performance.now() - t;
  t = performance.now();
  await svc.checkpoint(folder, 'manual', hostId);
  return { changed, nothing: performance.now() - t };
}

const sshd = await startSshd();
const runtimeDir = await mkdtemp(join(tmpdir(), 'sbrt-'));
const local = new LocalHost();
const remote = new SshHost({ id: 'bench', destination: sshd.alias, configFile: sshd.configFile, runtimeDir, instance: randomBytes(6).toString('hex') });
try {
  const connectStart = performance.now();
  const r = await remote.connect();
  if (!r.ok) throw new Error(r.failure.message);
  console.log(`remote.connect_ms: ${Math.round(performance.now() - connectStart)} ms (helper copied, loopback)`);

  await ingest(local);
  await ingest(remote);
  const localRuns: number[] = [];
  const remoteRuns: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 3; i++) {
    localRuns.push((await ingest(local)).ms);
    const rr = await ingest(remote);
    remoteRuns.push(rr.ms);
    bytes = rr.bytes;
  }
  const mb = bytes / 1024 / 1024;
  console.log(`remote.ingest_local: ${round1(mb / (median(localRuns) / 1000))} MB/s (floor: ${LINES} lines of ${Math.round(bytes / LINES)} bytes through a local pipe)`);
  console.log(`remote.ingest_remote: ${round1(mb / (median(remoteRuns) / 1000))} MB/s`);
  console.log(`remote.ingest_vs_local: ${Math.round((median(remoteRuns) / median(localRuns)) * 100) / 100} ratio (goal ≤ 1.5)`);

  const localEcho = await echo(local, sshd.dir);
  const remoteEcho = await echo(remote, sshd.home);
  const lp = percentile(localEcho, 95);
  const rp = percentile(remoteEcho, 95);
  console.log(`remote.keystroke_echo_p95_ms: ${round1(rp)} ms (floor, a local pty: ${round1(lp)} ms; ratio ${round1(rp / lp)}; median ${round1(median(remoteEcho))} vs ${round1(median(localEcho))}) (goal ≤ 25 ms; no paint: the host's part only)`);

  // Checkpoints: the same tree here and on the host, each with a session open on it (watched).
  const cpData = await mkdtemp(join(tmpdir(), 'sb-bench-rcp-'));
  const localTree = join(cpData, 'tree');
  const remoteTree = join(sshd.home, `bench-tree-${randomBytes(4).toString('hex')}`);
  tree(localTree);
  tree(remoteTree);
  execFileSync('chown', ['-R', `${sshd.user}:`, remoteTree]);
  const store = new StoreService(join(cpData, 'data'));
  const svc = new CheckpointService(store, new EventBus(), join(cpData, 'data'), { autoPrune: false, host: local, hosts: (id) => (id === remote.id ? remote : undefined) });
  try {
    let t = performance.now();
    await svc.sessionOpened('local', [localTree]);
    await svc.idle();
    const firstLocal = performance.now() - t;
    t = performance.now();
    await svc.sessionOpened('remote', [remoteTree], remote.id);
    await svc.idle();
    const firstRemote = performance.now() - t;
    const localR = { changed: [] as number[], nothing: [] as number[] };
    const remoteR = { changed: [] as number[], nothing: [] as number[] };
    for (let round = 1; round <= CP_ROUNDS; round++) {
      const order = round % 2 ? (['local', 'remote'] as const) : (['remote', 'local'] as const);
      for (const which of order) {
        const r = which === 'local' ? await checkpointRounds(svc, local, 'local', localTree, round) : await checkpointRounds(svc, remote, remote.id, remoteTree, round);
        const into = which === 'local' ? localR : remoteR;
        into.changed.push(r.changed);
        into.nothing.push(r.nothing);
      }
    }
    // A turn on the host changing 10 files lists them (the figures above are of real snapshots).
    const turn = { sessionId: 'remote', promptId: randomUUID(), roots: [remoteTree], hostId: remote.id };
    await svc.turnStarting(turn);
    const files = await remote.files([remoteTree]);
    for (let i = 0; i < 10; i++) await files.writeFile(join(remoteTree, `d${i + 10}`, `f${i + 10}.ts`), 'changed by the turn\n');
    t = performance.now();
    svc.turnEnded(turn);
    await svc.idle();
    const endToRecorded = performance.now() - t;
    const listed = (await svc.listTurns('remote')).at(-1)?.changes?.files.length;
    if (listed !== 10) throw new Error(`the turn on the host listed ${listed} changed files, not 10`);
    const lc = median(localR.changed);
    const rc = median(remoteR.changed);
    console.error(`checkpoint rounds (ms): local ${localR.changed.map(Math.round).join(' ')}; remote ${remoteR.changed.map(Math.round).join(' ')}`);
    console.log(`remote.checkpoint_incremental_local_ms: ${round1(lc)} ms (floor, nothing changed: ${round1(median(localR.nothing))} ms; ${CP_FILES} files, 10 changed, watched)`);
    console.log(`remote.checkpoint_incremental_remote_ms: ${round1(rc)} ms (floor, nothing changed: ${round1(median(remoteR.nothing))} ms; taken on the host by its helper)`);
    console.log(`remote.checkpoint_incremental_vs_local: ${Math.round((rc / lc) * 100) / 100} ratio (goal ≤ 1.5)`);
    console.log(`remote.checkpoint_first_snapshot_ms: ${Math.round(firstRemote)} ms on the host (local: ${Math.round(firstLocal)} ms)`);
    console.log(`remote.checkpoint_turn_end_to_recorded_ms: ${Math.round(endToRecorded)} ms (a turn of 10 files on the host: after-checkpoint checked against the whole folder's stat, changes listed)`);
  } finally {
    await svc.dispose();
    store.dispose();
    await rm(cpData, { recursive: true, force: true });
    await rm(remoteTree, { recursive: true, force: true });
  }

  const drops: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < DROPS; i++) {
    const sleeper = remote.spawn(['sleep', '600'], { env: {} });
    await sleeper.started;
    const pid = await remote.masterPid();
    const t = performance.now();
    const back = new Promise<void>((resolve) => {
      const d = remote.onState((s) => {
        if (s.kind === 'connected') {
          void d.dispose();
          resolve();
        }
      });
    });
    process.kill(pid!, 'SIGKILL');
    await back;
    drops.push(performance.now() - t);
    sleeper.dispose();
    // Floor: a fresh ssh login over loopback (what any reconnect must pay).
    const f = performance.now();
    spawnSync('ssh', ['-F', sshd.configFile, '-o', 'ControlPath=none', sshd.alias, 'true']);
    floor.push(performance.now() - f);
  }
  console.log(`remote.reconnect_ms: ${Math.round(median(drops))} ms (floor, one plain ssh login: ${Math.round(median(floor))} ms; ratio ${round1(median(drops) / median(floor))}; worst ${Math.round(Math.max(...drops))} ms) (goal ≤ 3,000)`);
  await benchFirstReply(sshd, remote, REPLIES);
  console.log('remote: figures on a shared, loaded 2-core machine; loopback sshd');
} finally {
  await remote.dispose();
  await sshd.stop();
  await rm(runtimeDir, { recursive: true, force: true });
}
