// The ingest half of `bench stream`: the scenario agent's flood through the app's own core (AppCore: the
// store, the MessageLog with the history indexer attached, the ACP service), driven through the request
// router as the renderer drives it, with the bus serialized as the WebSocket server does for every event.
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppCore } from '../../src/main/core/app-core';
import type { ThreadEvent } from '../../src/shared/acp-thread';
import { scenarioAgentCommand } from '../../test/fixtures/scenario-agent/launch';
import { median } from './stats';

export interface IngestRun {
  updates: number;
  /** median of the measured runs */
  seconds: number;
  runs: number[];
  /** bytes of session.update frames the WebSocket server would send (JSON.stringify of each event) */
  frameBytes: number;
}

export async function runAppIngest({ chunks = 20_000, chunkBytes = 100, runs = 3 } = {}): Promise<IngestRun> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-bench-ingest-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(work, { recursive: true });
  const core = new AppCore({ dataDir, transport: 'browser', version: '0.0.0-bench' });
  let updates = 0;
  let frameBytes = 0;
  let onEnd: ((promptId: string) => void) | null = null;
  // What ws-server's bus link does for every event, whether or not a window is connected.
  core.bus.connect((name, payload) => {
    frameBytes += JSON.stringify({ type: 'event', name, payload }).length;
    if (name !== 'session.update') return;
    for (const { event } of (payload as { events: Array<{ event: ThreadEvent }> }).events) {
      if (event.type === 'update' && event.update.sessionUpdate === 'agent_message_chunk') updates++;
      else if (event.type === 'turn_end') onEnd?.(event.promptId ?? '');
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
    let counted = 0;
    for (let r = 0; r < runs; r++) {
      updates = 0;
      frameBytes = 0;
      const t0 = performance.now();
      await turn(session.id, `flood ${chunks} ${chunkBytes}`);
      times.push((performance.now() - t0) / 1000);
      counted = updates;
    }
    return { updates: counted, seconds: median(times), runs: times, frameBytes };
  } finally {
    await core.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}
