// The ingest half of `bench stream`: the scenario agent's flood through the app's own core (AppCore: the
// store, the MessageLog with the history indexer attached, the ACP service), driven through the request
// router as the renderer drives it, with the bus serialized as the WebSocket server does for every event.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppCore } from '../../src/main/app-core';
import type { ThreadEvent } from '../../src/shared/acp-thread';
import { scenarioAgentCommand } from '../../test/fixtures/scenario-agent/launch';
import { median } from './stats';

export interface IngestRun {
  updates: number;
  /** median of the measured runs: first agent chunk received → the turn's end */
  seconds: number;
  /** median of the measured runs: prompt sent → the turn's end (includes the turn's start: checkpoint, queue) */
  turnSeconds: number;
  runs: number[];
  /** this process's CPU time (user + system) per measured run, ms (median) */
  cpuMs: number;
}

export interface AppIngestRun extends IngestRun {
  /** bytes of event frames the WebSocket server would send (JSON.stringify of each event), last run */
  frameBytes: number;
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export async function runAppIngest({ chunks = 20_000, chunkBytes = 100, runs = 3 } = {}): Promise<AppIngestRun> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-bench-ingest-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(work, { recursive: true });
  const core = new AppCore({ dataDir, transport: 'browser', version: '0.0.0-bench' });
  let updates = 0;
  let frameBytes = 0;
  let firstChunkAt = 0;
  let onEnd: ((promptId: string) => void) | null = null;
  // What ws-server's bus link does for every event while a window is connected (serialize it for the frame).
  core.bus.connect((name, payload) => {
    frameBytes += JSON.stringify({ name, payload }).length;
    if (name !== 'session.update') return;
    // A forwarded event may stand for several chunks joined (`merged`): count the updates it carries.
    for (const { event, merged } of (payload as { events: Array<{ event: ThreadEvent; merged?: number }> }).events) {
      if (event.type === 'update' && event.update.sessionUpdate === 'agent_message_chunk') {
        if (updates === 0) firstChunkAt = performance.now();
        updates += merged ?? 1;
      } else if (event.type === 'turn_end') onEnd?.(event.promptId ?? '');
    }
  });
  const call = async <T>(method: string, params: unknown): Promise<T> => {
    const r = await core.router.invoke(method, params);
    if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
    return r.value as T;
  };
  const turn = async (sessionId: string, text: string) => {
    let id = '';
    let early: string[] = [];
    const done = new Promise<void>((resolve) => {
      onEnd = (promptId) => {
        if (!id) early.push(promptId);
        else if (promptId === id) resolve();
      };
    });
    id = (await call<{ promptId: string }>('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] })).promptId;
    if (early.includes(id)) return;
    early = [];
    await done;
  };
  try {
    const { command, args } = scenarioAgentCommand();
    const agent = await call<{ id: string }>('agents.addCustom', { name: 'bench', command, args, env: {}, cwd: work });
    const session = await call<{ id: string }>('sessions.create', { agentId: agent.id, cwd: work, additionalDirectories: [] });
    await turn(session.id, `flood ${chunks} ${chunkBytes}`); // warm-up: JIT, validators, statements
    const times: number[] = [];
    const turns: number[] = [];
    const cpu: number[] = [];
    let counted = 0;
    for (let r = 0; r < runs; r++) {
      await core.checkpoints.idle(); // the last turn's "after" checkpoint is not this run's work
      updates = 0;
      frameBytes = 0;
      const c0 = cpuNow();
      const t0 = performance.now();
      await turn(session.id, `flood ${chunks} ${chunkBytes}`);
      const t1 = performance.now();
      times.push((t1 - firstChunkAt) / 1000);
      turns.push((t1 - t0) / 1000);
      cpu.push(cpuNow() - c0);
      counted = updates;
    }
    return { updates: counted, seconds: median(times), turnSeconds: median(turns), runs: times, cpuMs: median(cpu), frameBytes };
  } finally {
    await core.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Baseline: the same agent and flood, read by a bare loop that only splits lines and JSON.parses them
 * (with this process's CPU time recorded too).
 */
export async function runParseBaseline({ chunks = 20_000, chunkBytes = 100, runs = 3 } = {}): Promise<IngestRun> {
  const { command, args } = scenarioAgentCommand();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env });
  const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  let buffered = '';
  let updates = 0;
  let firstChunkAt = 0;
  let waiting: { id: number; resolve: (result: Record<string, unknown>) => void } | null = null;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let start = 0;
    let nl: number;
    while ((nl = buffered.indexOf('\n', start)) >= 0) {
      const msg = JSON.parse(buffered.slice(start, nl)) as { id?: number; method?: string; result?: Record<string, unknown>; params?: { update?: { sessionUpdate?: string } } };
      start = nl + 1;
      if (msg.method === 'session/update' && msg.params?.update?.sessionUpdate === 'agent_message_chunk') {
        if (updates === 0) firstChunkAt = performance.now();
        updates++;
      }
      else if (waiting && msg.id === waiting.id && !msg.method) waiting.resolve(msg.result ?? {});
    }
    buffered = buffered.slice(start);
  });
  let nextId = 0;
  const request = (method: string, params: object) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = nextId++;
      waiting = { id, resolve };
      send({ jsonrpc: '2.0', id, method, params });
    });
  try {
    await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await request('session/new', { cwd: process.cwd(), mcpServers: [] })) as { sessionId: string };
    const flood = () => request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `flood ${chunks} ${chunkBytes}` }] });
    await flood(); // warm-up
    const times: number[] = [];
    const turns: number[] = [];
    const cpu: number[] = [];
    let counted = 0;
    for (let r = 0; r < runs; r++) {
      updates = 0;
      const c0 = cpuNow();
      const t0 = performance.now();
      await flood();
      const t1 = performance.now();
      times.push((t1 - firstChunkAt) / 1000);
      turns.push((t1 - t0) / 1000);
      cpu.push(cpuNow() - c0);
      counted = updates;
    }
    return { updates: counted, seconds: median(times), turnSeconds: median(turns), runs: times, cpuMs: median(cpu) };
  } finally {
    child.kill('SIGKILL');
  }
}
