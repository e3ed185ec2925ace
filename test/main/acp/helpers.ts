import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventName, ParamsOf, PayloadOf, RequestName, ResultOf } from '../../../src/shared/contract';
import type { SessionUpdateItem } from '../../../src/shared/contract/sessions';
import { AppCore, type CoreOptions } from '../../../src/main/app-core';
import type { Hosts } from '../../../src/main/core/host/hosts';
import type { Clock } from '../../../src/main/core/base/clock';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';

export interface RecordedEvent {
  name: EventName;
  payload: unknown;
}

/** Every bus event, in order, with a way to wait for one. */
export class Recorder {
  readonly events: RecordedEvent[] = [];
  private waiters: Array<() => void> = [];

  push(name: EventName, payload: unknown): void {
    this.events.push({ name, payload });
    for (const w of this.waiters.splice(0)) w();
  }

  of<N extends EventName>(name: N): Array<PayloadOf<N>> {
    return this.events.filter((e) => e.name === name).map((e) => e.payload as PayloadOf<N>);
  }

  /** The thread events of all `session.update` batches, one by one, in order. */
  updates(): Array<{ sessionId: string } & SessionUpdateItem> {
    return this.of('session.update').flatMap((p) => p.events.map((e) => ({ sessionId: p.sessionId, ...e })));
  }

  /** Waits until `pred` holds (checked on every event and every 100 ms). */
  async until<T>(pred: () => T | undefined | null | false, what: string, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = pred();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

export interface TestCore {
  core: AppCore;
  rec: Recorder;
  dataDir: string;
  /** A fresh project folder (real path) for sessions. */
  work: string;
  call<N extends RequestName>(method: N, params: ParamsOf<N>): Promise<ResultOf<N>>;
  callError(method: RequestName, params: unknown): Promise<{ code: string; message: string }>;
  addAgent(env?: Record<string, string>, name?: string): Promise<string>;
  dispose(): Promise<void>;
}

/**
 * A core on a fresh data folder; `hosts`: where work happens (a StubAgentHost's runs its agents in-process);
 * `clock`: its agents' time (a FakeClock moves only when told); `checkpoints`: folders snapshotted around turns
 * (off unless a test is about them: a snapshot before and after every turn is most of a short test's time).
 */
export async function makeCore(
  options: { hosts?: Hosts; clock?: Clock; sshConfigFile?: string; dataDir?: string; checkpoints?: boolean; containers?: CoreOptions['containers']; timeZone?: string } = {},
): Promise<TestCore> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-acp-')));
  const dataDir = options.dataDir ?? join(root, 'data');
  const work = join(root, 'work');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(work, { recursive: true });
  const core = new AppCore({ dataDir, transport: 'browser', version: 'test', ...options, checkpoints: options.checkpoints ?? false });
  const rec = new Recorder();
  core.bus.connect((name, payload) => rec.push(name, payload));
  const call = async <N extends RequestName>(method: N, params: ParamsOf<N>): Promise<ResultOf<N>> => {
    const r = await core.router.invoke(method, params);
    if (!r.ok) throw new Error(`${method} failed: ${r.error.code}: ${r.error.message}`);
    return r.value as ResultOf<N>;
  };
  const callError = async (method: RequestName, params: unknown) => {
    const r = await core.router.invoke(method, params);
    if (r.ok) throw new Error(`${method} unexpectedly succeeded`);
    return r.error;
  };
  const addAgent = async (env: Record<string, string> = {}, name = 'Scenario') => {
    const { command, args } = scenarioAgentCommand();
    const agent = await call('agents.addCustom', { name, command, args, env, cwd: work });
    return agent.id;
  };
  return {
    core,
    rec,
    dataDir,
    work,
    call,
    callError,
    addAgent,
    dispose: async () => {
      await core.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Text of all agent_message_chunk updates of a session, in order. */
export function agentText(rec: Recorder, sessionId: string): string {
  let out = '';
  for (const p of rec.updates()) {
    if (p.sessionId !== sessionId || p.event.type !== 'update') continue;
    const u = p.event.update;
    if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') out += u.content.text;
  }
  return out;
}

/** Resolves with the turn_end event of a prompt. */
export function turnEnd(t: TestCore, sessionId: string, promptId: string, timeoutMs = 30_000) {
  return t.rec.until(
    () =>
      t.rec
        .updates()
        .filter((p) => p.sessionId === sessionId)
        .map((p) => p.event)
        .find((e): e is Extract<typeof e, { type: 'turn_end' }> => e.type === 'turn_end' && e.promptId === promptId),
    `turn ${promptId} to end`,
    timeoutMs,
  );
}

/** Sends a text prompt and waits for its turn to end; returns the turn_end event. */
export async function promptAndWait(t: TestCore, sessionId: string, text: string, timeoutMs = 30_000) {
  const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return turnEnd(t, sessionId, promptId, timeoutMs);
}

/** Polls `fn` until it returns a truthy value (for state outside the event stream, e.g. log files). */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The JSON the scenario agent replies with to a file-system prompt (its last message of the turn). */
export async function agentReply(
  t: TestCore,
  sessionId: string,
  text: string,
): Promise<{ ok: boolean; result?: { content?: string }; code?: number; message?: string }> {
  const before = t.rec.updates().length;
  await promptAndWait(t, sessionId, text);
  const chunks = t.rec
    .updates()
    .slice(before)
    .filter((p) => p.sessionId === sessionId && p.event.type === 'update' && p.event.update.sessionUpdate === 'agent_message_chunk');
  const last = chunks.at(-1)!.event;
  if (last.type !== 'update' || last.update.sessionUpdate !== 'agent_message_chunk' || last.update.content.type !== 'text') throw new Error('no reply');
  return JSON.parse(last.update.content.text);
}
