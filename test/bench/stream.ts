import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpService } from '../../src/main/acp/acp-service';
import { EventBus } from '../../src/main/core/event-bus';
import { Router } from '../../src/main/core/router';
import { StoreService } from '../../src/main/store/store-service';
import { PtyHost } from '../../src/main/terminal/pty-host';
import type { ThreadEvent } from '../../src/shared/acp-thread';
import { scenarioAgentCommand } from '../fixtures/scenario-agent/launch';

export interface StreamRun {
  updates: number;
  seconds: number;
}

export interface StreamBenchResult extends StreamRun {
  updatesPerSecond: number;
  /** The same flood read from the same agent, only split and JSON.parsed. */
  baseline: StreamRun;
  /** seconds / baseline.seconds */
  ratio: number;
}

export interface StreamBenchOptions {
  chunks?: number;
  chunkBytes?: number;
}

const plainEnv = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
};

/**
 * The scenario agent's flood (N agent_message_chunk updates of ~chunkBytes) through the real client path:
 * stdio tap, line split, JSON parse, MessageLog append (SQLite, one transaction per batch), schema
 * validation, the session's thread, bus events to a sink.
 */
export async function runClientPath({ chunks = 20_000, chunkBytes = 100 }: StreamBenchOptions = {}): Promise<StreamRun> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-bench-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  const store = new StoreService(dataDir);
  const bus = new EventBus();
  const ptys = new PtyHost();
  const acp = new AcpService({ router: new Router(), bus, store, ptys, options: { dataDir } }, { loginEnv: async () => plainEnv() });
  let updates = 0;
  let onEnd: ((promptId: string) => void) | null = null;
  bus.connect((name, payload) => {
    if (name !== 'session.update') return;
    const event = (payload as { event: ThreadEvent }).event;
    if (event.type === 'update') updates++;
    else if (event.type === 'turn_end') onEnd?.(event.promptId ?? '');
  });
  const turn = async (sessionId: string, text: string) => {
    const done = new Promise<void>((resolve) => {
      let id = '';
      onEnd = (promptId) => {
        if (promptId === id) resolve();
      };
      id = acp.live(sessionId).prompt([{ type: 'text', text }]).promptId;
    });
    await done;
  };
  try {
    const { command, args } = scenarioAgentCommand();
    const agent = acp.addCustom({ name: 'bench', command, args, env: {}, cwd: work });
    const session = await acp.createSession({ agentId: agent.id, cwd: work, additionalDirectories: [] });
    await turn(session.id, `flood 500 ${chunkBytes}`); // warm-up: JIT, validators, statements
    updates = 0;
    const t0 = performance.now();
    await turn(session.id, `flood ${chunks} ${chunkBytes}`);
    const seconds = (performance.now() - t0) / 1000;
    return { updates, seconds };
  } finally {
    await acp.dispose();
    await ptys.dispose();
    store.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Baseline: the same agent and flood, read by a bare loop that splits lines and JSON.parses them. */
export async function runBaseline({ chunks = 20_000, chunkBytes = 100 }: StreamBenchOptions = {}): Promise<StreamRun> {
  const { command, args } = scenarioAgentCommand();
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env: plainEnv() });
  const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  let buffered = '';
  let updates = 0;
  let waiting: { id: number; resolve: (result: Record<string, unknown>) => void } | null = null;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let start = 0;
    let nl: number;
    while ((nl = buffered.indexOf('\n', start)) >= 0) {
      const msg = JSON.parse(buffered.slice(start, nl)) as { id?: number; method?: string; result?: Record<string, unknown> };
      start = nl + 1;
      if (msg.method === 'session/update') updates++;
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
    await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `flood 500 ${chunkBytes}` }] });
    updates = 0;
    const t0 = performance.now();
    await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `flood ${chunks} ${chunkBytes}` }] });
    return { updates, seconds: (performance.now() - t0) / 1000 };
  } finally {
    child.kill('SIGKILL');
  }
}

/** `npm run bench -- stream`: the client path against the parse-only baseline. Goal: ≥ 50,000 updates/s, ≤ 3× baseline. */
export async function benchStream(options: StreamBenchOptions = {}): Promise<StreamBenchResult> {
  const baseline = await runBaseline(options);
  const client = await runClientPath(options);
  return { ...client, updatesPerSecond: client.updates / client.seconds, baseline, ratio: client.seconds / baseline.seconds };
}
