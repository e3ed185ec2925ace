import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SettingEntryInput, SettingValues } from '../../../src/shared/contract/settings';
import type { SessionInfo } from '../../../src/shared/contract/sessions';
import { FakeClock } from '../../support/fake-clock';
import { makeCore, promptAndWait, type TestCore } from '../acp/helpers';

/**
 * Idle agents give their memory back (issue 39): real scenario-agent processes, the supervisor's time a fake clock.
 * An agent whose sessions are all idle for the set time is stopped, its sessions left open and asleep; the next
 * prompt (or a look at the tab) starts it again and resumes or loads the session, its thread unchanged.
 */

let t: TestCore | null = null;
let clock = new FakeClock();
afterEach(async () => {
  await t?.dispose();
  t = null;
});

async function setup(settings: Partial<SettingValues>): Promise<TestCore> {
  clock = new FakeClock();
  t = await makeCore({ clock });
  for (const [key, value] of Object.entries(settings)) await t.call('settings.set', { key, value } as SettingEntryInput);
  return t;
}

/** Moves the supervisor's clock on a second at a time until `pred` holds (the agents act in real time between steps). */
async function advanceUntil<T>(pred: () => T | undefined | null | false, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await clock.advance(1000);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const stopped = (t: TestCore, agentId: string) => t.rec.of('agent.status').find((s) => s.agentId === agentId && s.state === 'stopped');
const states = (t: TestCore, sessionId: string): SessionInfo[] => t.rec.of('session.state').filter((s) => s.id === sessionId);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function texts(t: TestCore, sessionId: string): Promise<string[]> {
  const { thread } = await t.call('sessions.state', { sessionId });
  return thread.entries.flatMap((e) => (e.kind === 'user_message' || e.kind === 'agent_message' ? [`${e.kind}: ${e.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}`] : []));
}

const sent = (t: TestCore, sessionId: string, method: string) =>
  (t.core.store.db.prepare("SELECT COUNT(*) AS n FROM acp_messages WHERE session_id = ? AND direction = 'c2a' AND method = ?").get(sessionId, method) as { n: number }).n;

describe('idle agents give their memory back', () => {
  it('stops an agent idle for the set time, keeps its session open and asleep, and the next prompt resumes it with its thread unchanged', async () => {
    const t = await setup({ 'agents.sleepIdleMinutes': 0.05 });
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume' });
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, sessionId, 'hello');
    const pid = (await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!.status.pid!;
    const before = await texts(t, sessionId);
    expect(before).toHaveLength(2);
    // Not within the set time (3 s)…
    await clock.advance(1000);
    expect(stopped(t, agentId)).toBeUndefined();
    // …then stopped: the process is gone, the session stays open, idle and asleep.
    await advanceUntil(() => stopped(t, agentId), 'the idle agent to be stopped');
    expect(alive(pid)).toBe(false);
    const live = (await t.call('sessions.live', {})).sessions.find((s) => s.id === sessionId)!;
    expect(live).toMatchObject({ status: 'idle', asleep: 'asleep', error: null });
    expect(await texts(t, sessionId)).toEqual(before);

    const end = await promptAndWait(t, sessionId, 'say back again');
    expect(end.stopReason).toBe('end_turn');
    expect(states(t, sessionId).some((s) => s.asleep === 'waking')).toBe(true);
    expect(sent(t, sessionId, 'session/resume')).toBe(1);
    const after = await texts(t, sessionId);
    expect(after.slice(0, 2)).toEqual(before);
    expect(after.slice(2)).toEqual(['user_message: say back again', 'agent_message: back again']);
    expect((await t.call('sessions.live', {})).sessions.find((s) => s.id === sessionId)!.asleep).toBeUndefined();
  }, 60_000);

  it('a look at the tab (sessions.wake) brings back a session of an agent that only loads, its replay not shown twice', async () => {
    const t = await setup({ 'agents.sleepIdleMinutes': 0.05 });
    const agentStore = join(dirname(t.dataDir), 'agent-sessions.json');
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession', SCENARIO_STORE: agentStore });
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, sessionId, 'say one');
    await promptAndWait(t, sessionId, 'say two');
    const before = await texts(t, sessionId);
    await advanceUntil(() => stopped(t, agentId), 'the idle agent to be stopped');
    await t.call('sessions.wake', { sessionId });
    const live = (await t.call('sessions.live', {})).sessions.find((s) => s.id === sessionId)!;
    expect(live.status).toBe('idle');
    expect(live.asleep).toBeUndefined();
    expect(sent(t, sessionId, 'session/load')).toBe(1);
    expect(await texts(t, sessionId)).toEqual(before);
    expect((await promptAndWait(t, sessionId, 'say three')).stopReason).toBe('end_turn');
  }, 60_000);

  it('never stops an agent that cannot resume or load, nor one with a turn running, a permission pending or a terminal running', async () => {
    const t = await setup({ 'agents.sleepIdleMinutes': 0.02 });
    const plain = await t.addAgent({}, 'Plain');
    const busy = await t.addAgent({ SCENARIO_CAPS: 'resume' }, 'Busy');
    const asking = await t.addAgent({ SCENARIO_CAPS: 'resume' }, 'Asking');
    const control = await t.addAgent({ SCENARIO_CAPS: 'resume' }, 'Control');
    const running = await t.addAgent({ SCENARIO_CAPS: 'resume' }, 'Terminal');
    const p = await t.call('sessions.create', { agentId: plain, cwd: t.work, additionalDirectories: [] });
    const b = await t.call('sessions.create', { agentId: busy, cwd: t.work, additionalDirectories: [] });
    const a = await t.call('sessions.create', { agentId: asking, cwd: t.work, additionalDirectories: [] });
    await t.call('sessions.create', { agentId: control, cwd: t.work, additionalDirectories: [] });
    const r = await t.call('sessions.create', { agentId: running, cwd: t.work, additionalDirectories: [] });
    // A terminal of that session still running after its turn (as one the agent made with terminal/create and left running).
    const terminals = t.core.acp.context.terminals;
    terminals.create(running, r.id, { command: 'sleep', args: ['60'], env: {}, cwd: t.work, outputByteLimit: null });
    await t.call('settings.set', { key: 'agents.requestTimeoutSeconds', value: 0 });
    await promptAndWait(t, p.id, 'hello');
    await t.call('sessions.prompt', { sessionId: b.id, prompt: [{ type: 'text', text: 'say-hang' }] });
    await t.call('sessions.prompt', { sessionId: a.id, prompt: [{ type: 'text', text: 'permission edit' }] });
    await t.rec.until(() => states(t, a.id).at(-1)?.status === 'awaiting_permission', 'the permission question');
    // The control agent (idle, resumable) is stopped; by then the others have been idle as long, and stay.
    await advanceUntil(() => stopped(t, control), 'the idle control agent to be stopped');
    await clock.advance(5000);
    for (const id of [plain, busy, asking, running]) expect(stopped(t, id), id).toBeUndefined();
    // Its terminal ended: that agent too is stopped.
    await terminals.releaseSession(r.id);
    await advanceUntil(() => stopped(t, running), 'the agent whose terminal ended to be stopped');
    const live = (await t.call('sessions.live', {})).sessions;
    expect(live.filter((s) => s.asleep).map((s) => s.agentId).sort()).toEqual([control, running].sort());
  }, 60_000);

  it('over the memory budget, stops the least recently used idle agent first', async () => {
    const t = await setup({ 'agents.sleepIdleMinutes': 0 });
    const older = await t.addAgent({ SCENARIO_CAPS: 'resume' }, 'Older');
    const newer = await t.addAgent({ SCENARIO_CAPS: 'resume' }, 'Newer');
    const o = await t.call('sessions.create', { agentId: older, cwd: t.work, additionalDirectories: [] });
    const n = await t.call('sessions.create', { agentId: newer, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, o.id, 'hello');
    await clock.advance(1000);
    await promptAndWait(t, n.id, 'hello');
    const rss = async () => {
      const m = (await t.call('agents.metrics', {})).agents;
      return [older, newer].map((id) => m.find((x) => x.agentId === id)?.rssBytes ?? null);
    };
    let figures: Array<number | null> = [];
    await advanceUntil(() => {
      void rss().then((r) => (figures = r));
      return figures.length === 2 && figures.every((x) => x !== null);
    }, 'memory samples of both agents');
    // A budget the two pass together by a few MB: stopping one is enough.
    const total = (figures[0]! + figures[1]!) / 1024 ** 2;
    await t.call('settings.set', { key: 'agents.memoryBudgetMb', value: Math.floor(total - 8) });
    await advanceUntil(() => stopped(t, older), 'the least recently used agent to be stopped');
    await clock.advance(3000);
    expect(stopped(t, newer)).toBeUndefined();
    expect((await t.call('sessions.live', {})).sessions.find((s) => s.id === o.id)!.asleep).toBe('asleep');
  }, 60_000);
});
