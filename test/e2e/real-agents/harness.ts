// Shared set-up for the real-agent tests: a fake LLM, an isolated HOME and workspace, one agent process, and
// an ACP connection whose requests are routed to a MinimalClient per session. `close()` tears it all down.

import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientConnection, InitializeResponse, NewSessionResponse, PromptResponse } from '@agentclientprotocol/sdk';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index.js';
import {
  agentLaunch,
  createAgentHome,
  isAgentInstalled,
  notInstalledMessage,
  spawnAgentProcess,
  type AgentProcess,
  type RealAgentId,
} from '../../support/real-agents/index.js';
import { MinimalClient, routingClientApp, type MinimalClientOptions } from './minimal-client.js';

export interface Session {
  id: string;
  response: NewSessionResponse;
  client: MinimalClient;
  prompt(text: string): Promise<PromptResponse>;
  cancel(): Promise<void>;
  setMode(modeId: string): Promise<void>;
}

export interface Harness {
  llm: FakeLlm;
  workspace: string;
  agent: AgentProcess;
  connection: ClientConnection;
  initialize: InitializeResponse;
  newSession(clientOpts?: Omit<MinimalClientOptions, 'roots'>): Promise<Session>;
  /** For failure messages: the fake LLM's request log and the agent's stderr tail. */
  diagnostics(): string;
  close(): Promise<void>;
}

/**
 * Whether the agent's tests can run. Not installed: warn and skip, unless SWITCHBOARD_REQUIRE_REAL_AGENTS=1
 * (CI, after running the installer), where a missing agent fails the file instead of silently skipping.
 */
export function agentAvailable(id: RealAgentId): boolean {
  if (isAgentInstalled(id)) return true;
  if (process.env['SWITCHBOARD_REQUIRE_REAL_AGENTS'] === '1') throw new Error(notInstalledMessage(id));
  console.warn(`[skip] ${notInstalledMessage(id)}`);
  return false;
}

/** Rejects if `p` has not settled within `ms` (an agent stuck at start-up must fail the test, not hang it). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export async function startHarness(id: RealAgentId): Promise<Harness> {
  const llm = await startFakeLlm();
  const home = createAgentHome(id);
  // realpath: agents canonicalise their cwd, and paths in the assertions must match theirs.
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), `sb-ws-${id}-`)));
  const agent = spawnAgentProcess(agentLaunch(id, { llmUrl: llm.url, home: home.home }), {
    cwd: workspace,
    onStderr: process.env['REAL_AGENT_DEBUG'] ? (t) => process.stderr.write(`[${id}] ${t}`) : undefined,
  });

  const sessions = new Map<string, MinimalClient>();
  // Updates may arrive for a session before session/new has answered with its id.
  let creating: MinimalClient | undefined;
  const connection = routingClientApp((sid) => sessions.get(sid) ?? creating).connect(agent.stream);

  const close = async () => {
    for (const c of sessions.values()) c.dispose();
    connection.close();
    await agent.stop();
    await llm.close();
    home.dispose();
    rmSync(workspace, { recursive: true, force: true });
  };

  try {
    const initialize = await within(
      connection.agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: 'switchboard-tests', title: 'Switchboard tests', version: '0.0.0' },
      }),
      60_000,
      'initialize',
    );
    return {
      llm,
      workspace,
      agent,
      connection,
      initialize,
      async newSession(clientOpts = {}) {
        const client = new MinimalClient({ ...clientOpts, roots: [workspace] });
        creating = client;
        let response: NewSessionResponse;
        try {
          response = await within(
            connection.agent.request('session/new', { cwd: workspace, mcpServers: [] }),
            60_000,
            'session/new',
          );
        } finally {
          creating = undefined;
        }
        sessions.set(response.sessionId, client);
        const sessionId = response.sessionId;
        return {
          id: sessionId,
          response,
          client,
          prompt: (text) => connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }),
          cancel: () => connection.agent.notify('session/cancel', { sessionId }),
          setMode: async (modeId) => {
            await connection.agent.request('session/set_mode', { sessionId, modeId });
          },
        };
      },
      diagnostics: () =>
        `--- fake LLM requests ---\n${llm.describeLog()}\n--- agent stderr (tail) ---\n${agent.stderr().slice(-4000)}`,
      close,
    };
  } catch (err) {
    const diag = `--- agent stderr ---\n${agent.stderr().slice(-4000)}\n--- fake LLM ---\n${llm.describeLog()}`;
    await close();
    throw new Error(`${id}: start-up failed: ${String(err)}\n${diag}`);
  }
}

/** The harness of one agent for a describe block: started before its tests, closed after. */
export function useHarness(id: RealAgentId): () => Harness {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(id);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  }, 60_000);
  return () => {
    if (!h) throw new Error(`the ${id} harness did not start`);
    return h;
  };
}

/**
 * The same check for every agent: a reply streaming from the model, session/cancel → stopReason
 * `cancelled`, and the agent hangs up on the model instead of reading the whole (60 s) reply.
 */
export async function expectCancelStopsStreamingTurn(h: Harness): Promise<void> {
  h.llm.when('take your time', [{ kind: 'slow', chunks: 600, chunkDelayMs: 100 }]);
  const s = await h.newSession();
  const turn = s.prompt('take your time');
  // Cancel once the reply is visibly streaming.
  await s.client.waitFor(
    (events) =>
      events.some((e) => e.type === 'update' && e.update.sessionUpdate === 'agent_message_chunk' && e.update.content.type === 'text' && e.update.content.text.includes('quick')),
    60_000,
    'streamed text',
  );
  await s.cancel();
  const res = await turn;
  expect(res.stopReason, h.diagnostics()).toBe('cancelled');
  const slow = await h.llm.waitForRequest((r) => r.reply.includes('slow') && r.done, { timeoutMs: 30_000 });
  expect(slow.aborted).toBe(true);
}
