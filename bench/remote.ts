// `npm run bench -- remote [--quick]`: an SSH host (SshHost) on the loopback sshd of test/support/sshd.ts
// against this machine (LocalHost), the same work in the same run:
//   remote.ingest_vs_local      a process streaming ACP-sized JSON lines: local rate ÷ remote rate (goal ≤ 1.5)
//   remote.keystroke_echo_p95_ms  a key into a pty running `cat` → its echo, on the host; floor: a local pty
//   remote.reconnect_ms         the ControlMaster killed → the host connected again, processes reattached (goal ≤ 3,000)
//   remote.first_reply_overhead_ms  a prompt → the reply's first chunk, host minus local (bench/remote-first-reply.ts; goal ≤ 30)
// Needs root (the test user) and /usr/sbin/sshd; says why and exits otherwise.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Host } from '../src/main/core/host/host';
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
    const { spawnSync } = await import('node:child_process');
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
