import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { messageText } from '../../../src/shared/acp-thread';
import type { ParamsOf, RequestName, ResultOf } from '../../../src/shared/contract';
import { AppCore } from '../../../src/main/app-core';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { eventually, Recorder } from './helpers';

/**
 * Issue 4 "Restore": past sessions back as live sessions, across app restarts (a new AppCore on the same
 * data dir) and agent updates, with the scenario agent persisting its sessions like a real agent
 * (SCENARIO_STORE).
 */

interface App {
  core: AppCore;
  rec: Recorder;
  call<N extends RequestName>(method: N, params: ParamsOf<N>): Promise<ResultOf<N>>;
  callError(method: RequestName, params: unknown): Promise<{ code: string; message: string }>;
}

let root: string;
let app: App | null = null;

function start(dataDir: string): App {
  const core = new AppCore({ dataDir, transport: 'browser', version: 'test' });
  const rec = new Recorder();
  core.bus.connect((name, payload) => rec.push(name, payload));
  return {
    core,
    rec,
    call: async (method, params) => {
      const r = await core.router.invoke(method, params);
      if (!r.ok) throw new Error(`${method} failed: ${r.error.code}: ${r.error.message}`);
      return r.value as never;
    },
    callError: async (method, params) => {
      const r = await core.router.invoke(method, params);
      if (r.ok) throw new Error(`${method} unexpectedly succeeded`);
      return r.error;
    },
  };
}

function setup() {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-restore-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  app = start(dataDir);
  return { dataDir, work, agentStore: join(root, 'agent-sessions.json') };
}

/** Stops the app (its agents with it) and starts a new one on the same data dir. */
async function restart(dataDir: string, wipe = false): Promise<App> {
  await app!.core.dispose();
  app = null;
  if (wipe) rmSync(dataDir, { recursive: true, force: true });
  app = start(dataDir);
  return app;
}

afterEach(async () => {
  await app?.core.dispose();
  app = null;
  rmSync(root, { recursive: true, force: true });
});

async function addAgent(a: App, work: string, env: Record<string, string>): Promise<string> {
  const { command, args } = scenarioAgentCommand();
  return (await a.call('agents.addCustom', { name: 'Scenario', command, args, env, cwd: work })).id;
}

async function promptAndWait(a: App, sessionId: string, text: string): Promise<void> {
  const { promptId } = await a.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
  await a.rec.until(
    () => a.rec.of('session.update').some((p) => p.sessionId === sessionId && p.events.some((e) => e.event.type === 'turn_end' && e.event.promptId === promptId)),
    `turn ${promptId} to end`,
  );
}

async function threadTexts(a: App, sessionId: string): Promise<string[]> {
  const { thread } = await a.call('sessions.state', { sessionId });
  return thread.entries.flatMap((e) => (e.kind === 'user_message' || e.kind === 'agent_message' ? [`${e.kind === 'user_message' ? 'user' : 'agent'}: ${messageText(e.parts)}`] : []));
}

/** The transcript the history shows: prompts, user and agent messages. */
async function historyTexts(a: App, sessionId: string): Promise<string[]> {
  const r = await a.call('history.entries', { sessionId, offset: 0, limit: 500 });
  return r.entries.flatMap((e) => (e.kind === 'prompt' || e.kind === 'user' ? [`user: ${e.text}`] : e.kind === 'agent' ? [`agent: ${e.text}`] : []));
}

async function searchCount(a: App, sessionId: string, query: string): Promise<number> {
  const r = await eventually(async () => {
    const s = await a.call('history.search', { query, sessionId, limit: 200, perSession: 50 });
    return s.indexing.done ? s : null;
  }, 'search');
  return r.hits.filter((h) => h.kind !== 'title').length;
}

describe('restoring past sessions', () => {
  it('load path: after a restart the agent replays the session; the thread, transcript and search hold each message once', async () => {
    const { dataDir, work, agentStore } = setup();
    let a = app!;
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession,list,close', SCENARIO_STORE: agentStore });
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, 'echo pelican-question');
    await a.call('sessions.close', { sessionId: s.id });

    a = await restart(dataDir);
    const plan = await a.call('sessions.reopenPlan', { sessionId: s.id });
    expect(plan.mode).toBe('load');
    expect(plan.reason).toMatch(/session\/load/);
    const again = await a.call('sessions.reopen', { sessionId: s.id });
    expect(again).toMatchObject({ id: s.id, acpSessionId: s.acpSessionId, status: 'idle' });

    const before = await threadTexts(a, s.id);
    expect(before.filter((t) => t.includes('pelican-question'))).toHaveLength(2); // the prompt and the echo, once each
    expect(before[0]).toBe('user: echo pelican-question');

    await promptAndWait(a, s.id, 'hello');
    const after = await threadTexts(a, s.id);
    expect(after).toEqual([...before, 'user: hello', 'agent: Hello from the scenario agent.']);

    const transcript = await historyTexts(a, s.id);
    expect(transcript.filter((t) => t.includes('pelican-question'))).toHaveLength(2);
    expect(transcript.filter((t) => t === 'agent: Hello from the scenario agent.')).toHaveLength(1);
    expect(await searchCount(a, s.id, 'pelican')).toBe(2);

    // Closed and loaded once more (now in the same run): still once.
    await a.call('sessions.close', { sessionId: s.id });
    await a.call('sessions.reopen', { sessionId: s.id });
    expect(await threadTexts(a, s.id)).toEqual(after);
    expect((await historyTexts(a, s.id)).filter((t) => t.includes('pelican-question'))).toHaveLength(2);
  });

  it('resume path: after a restart and an agent update the thread starts with the stored transcript', async () => {
    const { dataDir, work, agentStore } = setup();
    let a = app!;
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'resume,loadSession,close', SCENARIO_STORE: agentStore });
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, 'echo walrus-question');
    await a.call('sessions.close', { sessionId: s.id });

    a = await restart(dataDir);
    // "Updating" the agent: a new version of its command line (takes effect at its next start).
    const agent = (await a.call('agents.list', {})).agents.find((x) => x.id === agentId)!;
    await a.call('agents.update', { agentId, args: [...agent.args, '--agent-version=2.0.0'] });
    expect((await a.call('sessions.reopenPlan', { sessionId: s.id })).mode).toBe('resume');
    await a.call('sessions.reopen', { sessionId: s.id });
    const texts = await threadTexts(a, s.id);
    expect(texts[0]).toBe('user: echo walrus-question');
    expect(texts.filter((t) => t.includes('walrus-question'))).toHaveLength(2);
    await promptAndWait(a, s.id, 'hello');
    expect(await threadTexts(a, s.id)).toEqual([...texts, 'user: hello', 'agent: Hello from the scenario agent.']);
  });

  it('neither: the plan says read-only, reopening is refused, and the transcript stays', async () => {
    const { dataDir, work } = setup();
    let a = app!;
    const agentId = await addAgent(a, work, {});
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, 'echo otter-question');
    await a.call('sessions.close', { sessionId: s.id });
    a = await restart(dataDir);
    const plan = await a.call('sessions.reopenPlan', { sessionId: s.id });
    expect(plan.mode).toBeNull();
    expect(plan.reason).toMatch(/read-only/);
    expect((await a.callError('sessions.reopen', { sessionId: s.id })).code).toBe('unavailable');
    expect((await historyTexts(a, s.id)).filter((t) => t.includes('otter-question'))).toHaveLength(2);
  });

  it("lists the agent's own sessions page by page (cwd filter) and imports one, which opens live with its conversation", async () => {
    const { dataDir, work, agentStore } = setup();
    let a = app!;
    const other = join(root, 'other');
    mkdirSync(other);
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession,list,close', SCENARIO_STORE: agentStore, SCENARIO_LIST_PAGE: '2' });
    const made: string[] = [];
    for (const [cwd, word] of [
      [work, 'alpha'],
      [work, 'beta'],
      [work, 'gamma'],
      [other, 'delta'],
    ] as const) {
      const s = await a.call('sessions.create', { agentId, cwd });
      await promptAndWait(a, s.id, `echo ${word}-word`);
      made.push(s.acpSessionId!);
    }
    // The agent's sessions exist beyond Switchboard's store: forget ours (a fresh data dir would too).
    a = await restart(dataDir, true);
    const agentId2 = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession,list,close', SCENARIO_STORE: agentStore, SCENARIO_LIST_PAGE: '2' });

    const first = await a.call('agents.listSessions', { agentId: agentId2, cwd: work });
    expect(first.sessions).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await a.call('agents.listSessions', { agentId: agentId2, cwd: work, cursor: first.nextCursor! });
    expect(second.nextCursor).toBeNull();
    const listed = [...first.sessions, ...second.sessions].map((x) => x.sessionId);
    expect(listed).toEqual(made.slice(0, 3));
    expect((await a.call('agents.listSessions', { agentId: agentId2, cwd: other })).sessions.map((x) => x.sessionId)).toEqual([made[3]]);
    expect((await a.call('agents.knownSessions', { agentId: agentId2, acpSessionIds: listed })).known).toEqual({});

    const imp = await a.call('sessions.import', { agentId: agentId2, acpSessionId: made[1]!, cwd: work, title: null });
    expect(imp).toMatchObject({ mode: 'load', imported: true, session: { acpSessionId: made[1], status: 'idle' } });
    const id = imp.session.id;
    expect(await threadTexts(a, id)).toEqual(['user: echo beta-word', expect.stringContaining('beta-word')]);
    // It is a Switchboard session now: in the history, searchable, once.
    const hist = await eventually(async () => {
      const l = await a.call('history.list', { limit: 50, offset: 0 });
      return l.sessions.find((x) => x.id === id);
    }, 'the imported session in the history');
    expect(hist.agentId).toBe(agentId2);
    expect((await historyTexts(a, id)).filter((t) => t.includes('beta-word'))).toHaveLength(2);
    expect((await a.call('agents.knownSessions', { agentId: agentId2, acpSessionIds: listed })).known).toEqual({ [made[1]!]: id });

    // Importing it again opens the same session.
    await a.call('sessions.close', { sessionId: id });
    const again = await a.call('sessions.import', { agentId: agentId2, acpSessionId: made[1]!, cwd: work });
    expect(again).toMatchObject({ imported: false, session: { id } });
    expect((await historyTexts(a, id)).filter((t) => t.includes('beta-word'))).toHaveLength(2);
    expect(await threadTexts(a, id)).toEqual(['user: echo beta-word', expect.stringContaining('beta-word')]);
    await promptAndWait(a, id, 'hello');
    expect((await threadTexts(a, id)).slice(-2)).toEqual(['user: hello', 'agent: Hello from the scenario agent.']);
  });

  it('deletes the agent’s copy with session/delete when advertised, and says so when not', async () => {
    const { work, agentStore } = setup();
    const a = app!;
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession,list,close,delete', SCENARIO_STORE: agentStore });
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, 'hello');
    expect((await a.call('agents.listSessions', { agentId })).sessions.map((x) => x.sessionId)).toEqual([s.acpSessionId]);
    await a.call('history.delete', { sessionIds: [s.id] });
    const r = await a.call('sessions.deleteOnAgent', { sessionId: s.id });
    expect(r.deleted).toBe(true);
    expect(a.rec.of('session.state').some((x) => x.id === s.id && x.status === 'closed')).toBe(true);
    expect((await a.call('agents.listSessions', { agentId })).sessions).toEqual([]);
    // Undo brings back the stored transcript (read-only now that the agent forgot it).
    await a.call('history.undoDelete', { sessionIds: [s.id] });
    expect(await historyTexts(a, s.id)).toEqual(['user: hello', 'agent: Hello from the scenario agent.']);

    const plain = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession' });
    const p = await a.call('sessions.create', { agentId: plain, cwd: work });
    const r2 = await a.call('sessions.deleteOnAgent', { sessionId: p.id });
    expect(r2).toMatchObject({ deleted: false });
    expect(r2.reason).toMatch(/session\/delete/);
  });

  it('closing a live session sends session/close when advertised', async () => {
    const { work, agentStore } = setup();
    const a = app!;
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'resume,list,close', SCENARIO_STORE: agentStore });
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await a.call('sessions.close', { sessionId: s.id });
    expect(a.core.store.db.prepare("SELECT count(*) AS n FROM acp_messages WHERE session_id = ? AND method = 'session/close'").get(s.id)).toEqual({ n: 1 });
  });
});

/** How many times the agent's process was spawned (its log notes each spawn). */
function spawns(dataDir: string): number {
  const dir = join(dataDir, 'logs', 'agents');
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n')
    .split('\n')
    .filter((l) => / spawn \[/.test(l)).length;
}

describe('issue 14: restored sessions and failed reopens', () => {
  it('tells how a stored session would come back without starting its agent (its last capabilities are remembered)', async () => {
    const { dataDir, work, agentStore } = setup();
    let a = app!;
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession,close', SCENARIO_STORE: agentStore });
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, 'echo heron-question');
    await a.call('sessions.close', { sessionId: s.id });
    expect(spawns(dataDir)).toBe(1);

    a = await restart(dataDir);
    const plan = await a.call('sessions.reopenPlan', { sessionId: s.id });
    expect(plan).toMatchObject({ mode: 'load', agentName: 'Scenario' });
    expect(spawns(dataDir)).toBe(1);
    expect(a.rec.of('agent.status').filter((st) => st.state === 'starting')).toEqual([]);
    expect((await a.call('agents.list', {})).agents.find((x) => x.id === agentId)?.status.state).toBe('stopped');

    // Reopening starts it.
    await a.call('sessions.reopen', { sessionId: s.id });
    expect(spawns(dataDir)).toBe(2);
    expect((await threadTexts(a, s.id)).filter((t) => t.includes('heron-question'))).toHaveLength(2);
  });

  it('a failed session/load leaves the session closed with the agent’s error; it can be continued in a new session', async () => {
    const { dataDir, work, agentStore } = setup();
    let a = app!;
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession,close', SCENARIO_STORE: agentStore, SCENARIO_LOAD_ERROR: 'No previous sessions found' });
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, 'echo ibis-question');
    await a.call('sessions.close', { sessionId: s.id });

    a = await restart(dataDir);
    const err = await a.callError('sessions.reopen', { sessionId: s.id });
    expect(err.message).toContain('No previous sessions found');
    // The renderer learns it is not live: its last state is closed, with the agent's error.
    const states = a.rec.of('session.state').filter((st) => st.id === s.id);
    expect(states.at(-1)).toMatchObject({ status: 'closed' });
    expect(states.at(-1)?.error).toContain('No previous sessions found');
    expect((await a.call('sessions.live', {})).sessions.map((x) => x.id)).not.toContain(s.id);
    expect((await a.callError('sessions.state', { sessionId: s.id })).code).toBe('not_found');
    // Still offered again, and a new session in the same folder works.
    expect((await a.call('sessions.reopenPlan', { sessionId: s.id })).mode).toBe('load');
    const fresh = await a.call('sessions.create', { agentId, cwd: work });
    expect(fresh.status).toBe('idle');
    expect((await historyTexts(a, s.id)).filter((t) => t.includes('ibis-question'))).toHaveLength(2);
  });
});

describe('issue 14: what a stored session keeps', () => {
  it('after a reopen by session/load, a terminal shows its stored output and a cancelled turn keeps its mark (thread and transcript)', async () => {
    const { dataDir, work, agentStore } = setup();
    let a = app!;
    const agentId = await addAgent(a, work, { SCENARIO_CAPS: 'loadSession,close', SCENARIO_STORE: agentStore });
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, `terminal ${JSON.stringify({ command: 'sh', args: ['-c', 'echo kite-out'] })}`);
    const { promptId } = await a.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'slow' }] });
    await a.rec.until(() => a.rec.of('session.update').some((p) => p.sessionId === s.id && p.events.some((e) => e.event.type === 'update' && e.event.update.sessionUpdate === 'agent_message_chunk' && JSON.stringify(e.event.update).includes('tick 1'))), 'ticks');
    await a.call('sessions.cancel', { sessionId: s.id });
    await a.rec.until(() => a.rec.of('session.update').some((p) => p.sessionId === s.id && p.events.some((e) => e.event.type === 'turn_end' && e.event.promptId === promptId)), 'cancelled turn');
    await promptAndWait(a, s.id, 'hello');
    const liveMarks = (await a.call('sessions.state', { sessionId: s.id })).thread.stopMarks;
    expect(liveMarks.map((m) => m.stopReason)).toEqual(['cancelled']);
    await a.call('sessions.close', { sessionId: s.id });

    a = await restart(dataDir);
    await a.call('sessions.reopen', { sessionId: s.id });
    const { thread } = await a.call('sessions.state', { sessionId: s.id });
    const tool = thread.entries.find((e) => e.kind === 'tool_call' && e.content.some((c) => c.type === 'terminal'));
    expect(tool?.kind).toBe('tool_call');
    const stored = tool?.kind === 'tool_call' ? Object.values(tool.storedTerminals ?? {}) : [];
    expect(stored).toHaveLength(1);
    expect(stored[0]!.output).toContain('kite-out');
    expect(stored[0]!.exit).toEqual({ exitCode: 0, signal: null });
    // The cancelled turn is marked where it ended: before the "hello" prompt.
    expect(thread.stopMarks).toEqual(liveMarks);
    const hello = thread.entries.findIndex((e) => e.kind === 'user_message' && e.parts.some((p) => p.type === 'text' && p.text === 'hello'));
    expect(thread.stopMarks[0]!.afterEntries).toBe(hello);

    const transcript = await a.call('history.entries', { sessionId: s.id, offset: 0, limit: 500 });
    const stops = transcript.entries.filter((e) => e.kind === 'stop');
    expect(stops.map((e) => e.stop?.stopReason)).toEqual(['cancelled']);
    expect(stops[0]!.failed).toBe(false);
    const listed = (await a.call('history.list', {})).sessions.find((x) => x.id === s.id);
    expect(listed?.failedTurns).toBe(0);
  });

  it('a tool call whose content a later update replaced keeps its last diff, marked as replaced (thread and transcript)', async () => {
    const { work } = setup();
    const a = app!;
    const agentId = await addAgent(a, work, {});
    const s = await a.call('sessions.create', { agentId, cwd: work });
    await promptAndWait(a, s.id, 'diff-replace');
    const { thread } = await a.call('sessions.state', { sessionId: s.id });
    const tool = thread.entries.find((e) => e.kind === 'tool_call');
    if (tool?.kind !== 'tool_call') throw new Error('no tool call');
    expect(tool.content.map((c) => c.type)).toEqual(['content']);
    expect(tool.replacedDiffs).toEqual([{ type: 'diff', path: `${work}/pkg/__init__.py`, oldText: null, newText: 'VERSION = "1.0"\n' }]);
    const transcript = await eventually(async () => {
      const r = await a.call('history.entries', { sessionId: s.id, offset: 0, limit: 500 });
      return r.entries.map((e) => e.entry).find((e) => e?.kind === 'tool_call' && e.status === 'completed') ?? null;
    }, 'the transcript');
    expect(transcript.kind === 'tool_call' && transcript.replacedDiffs).toEqual([{ type: 'diff', path: `${work}/pkg/__init__.py`, oldText: null, newText: 'VERSION = "1.0"\n' }]);
  });
});
