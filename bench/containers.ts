// `npm run bench -- containers`: sessions in containers on a real Podman (the tests' own configuration and
// locally built image, test/support/podman.ts), against the same work in the same run:
// - containers.start_vs_floor: a new container session ready (sessions.create through AppCore: engine, fence,
//   `devcontainer up` with the agent's program mounted, the agent started, session/new answered) ÷ `devcontainer up` run alone +
//   the same agent started alone in that container (`podman exec`, initialize + session/new). Goal ≤ 1.2.
// - containers.ingest_vs_local: a flood of agent_message_chunk from the agent inside ÷ the same agent on this
//   machine, through the same core. Goal ≤ 1.2.
// - containers.checkpoint_vs_local: a checkpoint after 10 files changed in the mounted folder ÷ the same in a
//   local session's folder. Goal ≤ 1.2.
// - containers.idle_overhead_mb: an idle container session's resident memory beyond its agent's own (the
//   container's other processes, and the `podman exec` client holding the agent's stdio on this machine), with
//   the engine's own (conmon) beside it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { AppCore } from '../src/main/app-core';
import type { ThreadEvent } from '../src/shared/acp-thread';
import { scenarioAgentPath } from '../test/fixtures/scenario-agent/launch';
import { podmanEnv, podmanSkipReason, removeTestContainers, testImage } from '../test/support/podman';
import { median, round1 } from './support/stats';

const skip = podmanSkipReason();
if (skip) {
  console.log(`containers: skipped (${skip})`);
  process.exit(0);
}
const ROUNDS = 3;
const FLOOD = 20_000;
const CP_FILES = 2000;
const r2 = (n: number) => Math.round(n * 100) / 100;
const cli = createRequire(import.meta.url).resolve('@devcontainers/cli/devcontainer.js');
const env = podmanEnv();
const podman = (args: string[]) => execFileSync('podman', args, { env, maxBuffer: 64 << 20 }).toString('utf8');

const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-bench-containers-')));
const tag = `sbbench-${process.pid}-`;
const bundle = join(root, 'agent', 'scenario-agent.mjs');
await build({ entryPoints: [scenarioAgentPath], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent', banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } });
const image = testImage('node');

const core = new AppCore({ dataDir: join(root, 'data'), transport: 'browser', version: '0.0.0-bench', containers: { engineEnv: env } });
const ends = new Map<string, () => void>();
let chunks = 0;
let firstChunkAt = 0;
core.bus.connect((name, payload) => {
  if (name !== 'session.update') return;
  for (const { event, merged } of (payload as { events: Array<{ event: ThreadEvent; merged?: number }> }).events) {
    if (event.type === 'update' && event.update.sessionUpdate === 'agent_message_chunk') {
      if (chunks === 0) firstChunkAt = performance.now();
      chunks += merged ?? 1;
    } else if (event.type === 'turn_end') {
      ended.add(event.promptId ?? '');
      ends.get(event.promptId ?? '')?.();
    }
  }
});
const call = async <T>(method: string, params: unknown): Promise<T> => {
  const r = await core.router.invoke(method, params);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.value as T;
};
const ended = new Set<string>();
const turn = async (sessionId: string, text: string): Promise<void> => {
  const { promptId } = await call<{ promptId: string }>('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
  if (ended.has(promptId)) return;
  await new Promise<void>((resolve) => ends.set(promptId, resolve));
};
const made: string[] = [];
/** The floor's containers (made by the CLI alone, without Switchboard's labels). */
const floorContainers: string[] = [];

try {
  const folder = (name: string): string => {
    const f = join(root, name);
    mkdirSync(f, { recursive: true });
    return f;
  };
  const agent = await call<{ id: string }>('agents.addCustom', { name: 'bench', command: 'node', args: [bundle], env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, cwd: root });
  const containerSession = async (cwd: string) => {
    const s = await call<{ id: string; hostId: string }>('sessions.create', { agentId: agent.id, cwd, container: { source: { kind: 'image', image }, fence: { network: 'none' } } });
    made.push(s.id);
    return s;
  };

  // ── start
  const starts: number[] = [];
  const floors: number[] = [];
  const ups: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await containerSession(folder(`start-${i}`));
    starts.push(performance.now() - t0);
    const f = folder(`floor-${i}`);
    const config = join(root, `floor-${i}.json`);
    writeFileSync(config, JSON.stringify({ image, workspaceFolder: f, workspaceMount: `type=bind,source=${f},target=${f}`, runArgs: ['--network=none'] }));
    const u0 = performance.now();
    const out = execFileSync(process.execPath, [cli, 'up', '--docker-path', 'podman', '--workspace-folder', f, '--override-config', config, '--id-label', `switchboard.session=${tag}floor-${i}`, '--log-format', 'text'], { env: { ...process.env, ...env } }).toString('utf8');
    const up = performance.now() - u0;
    const id = (JSON.parse(out.trim().split('\n').pop()!) as { containerId: string }).containerId;
    floorContainers.push(id);
    podman(['exec', id, 'mkdir', '-p', join(root, 'agent')]);
    podman(['cp', bundle, `${id}:${bundle}`]);
    const a0 = performance.now();
    await agentAlone(['podman', 'exec', '-i', '-w', f, id, 'node', bundle], f);
    ups.push(up);
    floors.push(up + performance.now() - a0);
  }
  console.log(`containers.start_ms: ${Math.round(median(starts))} ms (median of ${ROUNDS})`);
  console.log(`containers.start_floor_ms: ${Math.round(median(floors))} ms (devcontainer up alone: ${Math.round(median(ups))} ms, + the agent started alone in it)`);
  console.log(`containers.start_vs_floor: ${r2(median(starts) / median(floors))} ratio (goal ≤ 1.2)`);

  // ── ingest
  const inside = await containerSession(folder('ingest-inside'));
  const localDir = folder('ingest-local');
  const local = await call<{ id: string }>('sessions.create', { agentId: agent.id, cwd: localDir });
  const flood = async (sessionId: string): Promise<number> => {
    await core.checkpoints.idle();
    chunks = 0;
    await turn(sessionId, `flood ${FLOOD} 100`);
    return performance.now() - firstChunkAt;
  };
  await flood(inside.id);
  await flood(local.id);
  const inIngest: number[] = [];
  const localIngest: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    inIngest.push(await flood(inside.id));
    localIngest.push(await flood(local.id));
  }
  const mb = (FLOOD * 100) / 1e6;
  console.log(`containers.ingest_inside: ${round1(mb / (median(inIngest) / 1000))} MB/s (${FLOOD} chunks of 100 bytes)`);
  console.log(`containers.ingest_local: ${round1(mb / (median(localIngest) / 1000))} MB/s (floor: the same agent on this machine)`);
  console.log(`containers.ingest_vs_local: ${r2(median(inIngest) / median(localIngest))} ratio (goal ≤ 1.2)`);

  // ── checkpoint
  const fill = (dir: string) => {
    for (let i = 0; i < CP_FILES; i++) {
      const sub = join(dir, `d${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(40));
    }
  };
  const cpIn = folder('cp-inside');
  const cpLocal = folder('cp-local');
  fill(cpIn);
  fill(cpLocal);
  const cpSessionIn = await containerSession(cpIn);
  await call('sessions.create', { agentId: agent.id, cwd: cpLocal });
  const checkpoint = async (dir: string, hostId: string, round: number): Promise<number> => {
    for (let k = 0; k < 10; k++) writeFileSync(join(dir, `d${k}`, `f${k * 100 + (round % 100)}.ts`), `// round ${round}\n`);
    const t0 = performance.now();
    await core.checkpoints.checkpoint(dir, 'manual', hostId);
    return performance.now() - t0;
  };
  await checkpoint(cpIn, cpSessionIn.hostId, 0);
  await checkpoint(cpLocal, 'local', 0);
  const cpInside: number[] = [];
  const cpHere: number[] = [];
  for (let round = 1; round <= 7; round++) {
    cpInside.push(await checkpoint(cpIn, cpSessionIn.hostId, round));
    cpHere.push(await checkpoint(cpLocal, 'local', round));
  }
  console.log(`containers.checkpoint_inside_ms: ${round1(median(cpInside))} ms (${CP_FILES} files, 10 changed, the mounted folder read from this machine)`);
  console.log(`containers.checkpoint_local_ms: ${round1(median(cpHere))} ms (floor: the same in a local session's folder)`);
  console.log(`containers.checkpoint_vs_local: ${r2(median(cpInside) / median(cpHere))} ratio (goal ≤ 1.2)`);

  // ── idle memory: the session of the ingest, idle
  await core.checkpoints.idle();
  const [box] = JSON.parse(podman(['ps', '--filter', `label=switchboard.session=${inside.id}`, '--format', 'json'])) as Array<{ Id: string }>;
  const insideProcs = podman(['exec', box!.Id, 'ps', '-eo', 'rss=,args=']).split('\n').filter((l) => l.trim() && !/\bps -eo\b/.test(l));
  const hostProcs = execFileSync('ps', ['-eo', 'rss=,args=']).toString('utf8').split('\n').filter((l) => l.includes(box!.Id));
  const rssOf = (lines: string[]) => lines.reduce((n, l) => n + Number(l.trim().split(/\s+/)[0]), 0) / 1024;
  const agentMb = rssOf(insideProcs.filter((l) => l.includes('scenario-agent.mjs')));
  const othersInside = rssOf(insideProcs.filter((l) => !l.includes('scenario-agent.mjs')));
  const execClient = rssOf(hostProcs.filter((l) => /podman\b.*\bexec\b/.test(l) && !/conmon/.test(l)));
  const conmon = rssOf(hostProcs.filter((l) => /conmon/.test(l)));
  console.log(`containers.idle_overhead_mb: ${round1(othersInside + execClient)} MB (resident, beyond the agent's own ${round1(agentMb)} MB: the container's other processes ${round1(othersInside)} MB, the podman exec client holding its stdio on this machine ${round1(execClient)} MB)`);
  console.log(`containers.engine_overhead_mb: ${round1(conmon)} MB (the engine's own, beside it: conmon of the container and of the agent's exec)`);
} finally {
  await core.dispose().catch(() => {});
  for (const id of made) removeTestContainers(id);
  if (floorContainers.length > 0) podman(['rm', '-f', ...floorContainers]);
  rmSync(root, { recursive: true, force: true });
}

/** The agent started alone (argv), until it answered initialize and session/new. */
async function agentAlone(argv: string[], cwd: string): Promise<void> {
  const child = spawn(argv[0]!, argv.slice(1), { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  const answered = new Map<number, () => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buffered.slice(0, nl)) as { id?: number; method?: string };
      buffered = buffered.slice(nl + 1);
      if (msg.id !== undefined && !msg.method) answered.get(msg.id)?.();
    }
  });
  const request = (id: number, method: string, params: object) =>
    new Promise<void>((resolve) => {
      answered.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await request(1, 'session/new', { cwd, mcpServers: [] });
  child.kill('SIGKILL');
}

// A folder watch holds the event loop (the process keeps one watch of its own: core/host/local/local-watch.ts): the bench ends here.
process.exit(0);
