import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AcpServices, type AcpStore } from '../../src/main/core/acp/acp-services';
import { EventBus } from '../../src/main/core/base/event-bus';
import { openDatabase } from '../../src/main/core/store/database';
import { PtyHost } from '../../src/main/core/terminals/pty-host';
import { Hosts } from '../../src/main/core/host/hosts';
import { defaultsReader } from '../../src/main/core/settings/settings-service';
import type { ThreadEvent } from '../../src/shared/acp-thread';
import { runParseBaseline } from './ingest';
import { scenarioAgentCommand } from '../../test/fixtures/scenario-agent/launch';

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
  /** Measured floods (after one warm-up); the median is reported. */
  runs?: number;
}

function openStore(path: string): AcpStore & { close(): void } {
  const db = openDatabase(path);
  return { db, available: true, close: () => db.close() };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
export async function runClientPath({ chunks = 20_000, chunkBytes = 100, runs = 3 }: StreamBenchOptions = {}): Promise<StreamRun> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-bench-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const store = openStore(join(dataDir, 'switchboard.db'));
  const bus = new EventBus();
  const hosts = new Hosts();
  const ptys = new PtyHost(hosts.local);
  const acp = new AcpServices({ bus, store, settings: defaultsReader, ptys, hosts, options: { dataDir } }, { loginEnv: async () => plainEnv() });
  let updates = 0;
  let onEnd: ((promptId: string) => void) | null = null;
  bus.connect((name, payload) => {
    if (name !== 'session.update') return;
    // A forwarded event may stand for several chunks joined (`merged`): count the updates it carries.
    for (const { event, merged } of (payload as { events: Array<{ event: ThreadEvent; merged?: number }> }).events) {
      if (event.type === 'update' && event.update.sessionUpdate === 'agent_message_chunk') updates += merged ?? 1;
      else if (event.type === 'turn_end') onEnd?.(event.promptId ?? '');
    }
  });
  const turn = async (sessionId: string, text: string) => {
    const done = new Promise<void>((resolve) => {
      let id = '';
      onEnd = (promptId) => {
        if (promptId === id) resolve();
      };
      id = acp.sessions.prompt(sessionId, [{ type: 'text', text }]).promptId;
    });
    await done;
  };
  try {
    const { command, args } = scenarioAgentCommand();
    const agent = acp.agents.addCustom({ name: 'bench', command, args, env: {}, cwd: work });
    const session = await acp.sessions.create({ agentId: agent.id, cwd: work, additionalDirectories: [] });
    await turn(session.id, `flood ${chunks} ${chunkBytes}`); // warm-up: JIT, validators, statements
    const times: number[] = [];
    let counted = 0;
    for (let r = 0; r < runs; r++) {
      updates = 0;
      const t0 = performance.now();
      await turn(session.id, `flood ${chunks} ${chunkBytes}`);
      times.push((performance.now() - t0) / 1000);
      counted = updates;
    }
    return { updates: counted, seconds: median(times) };
  } finally {
    await acp.dispose();
    await ptys.dispose();
    store.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Baseline: the same agent and flood, read by a bare loop that splits lines and JSON.parses them. */
export async function runBaseline(options: StreamBenchOptions = {}): Promise<StreamRun> {
  const { updates, seconds } = await runParseBaseline(options);
  return { updates, seconds };
}

export async function benchStream(options: StreamBenchOptions = {}): Promise<StreamBenchResult> {
  const baseline = await runBaseline(options);
  const client = await runClientPath(options);
  return { ...client, updatesPerSecond: client.updates / client.seconds, baseline, ratio: client.seconds / baseline.seconds };
}

// `node --import tsx bench/support/client-path.ts [chunks]`: prints the figures.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const chunks = Number(process.argv[2] ?? 20_000);
  const r = await benchStream({ chunks });
  console.log(`stream.updates_per_s: ${Math.round(r.updatesPerSecond)} updates/s`);
  console.log(`stream.client_s: ${r.seconds.toFixed(3)} s`);
  console.log(`stream.baseline_s: ${r.baseline.seconds.toFixed(3)} s`);
  console.log(`stream.ratio_to_baseline: ${r.ratio.toFixed(2)} x`);
  process.exit(0);
}
