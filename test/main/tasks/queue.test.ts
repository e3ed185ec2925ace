import { agent, methods, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../support/fake-clock';
import { StubAgentHost } from '../../support/stub-agent';
import { eventually, makeCore, type TestCore } from '../acp/helpers';
import type { TaskRun } from '../../../src/shared/contract/tasks';

/**
 * The task queue and schedules on the real core (store, sessions, the agent's wire) with an agent in this process
 * whose turns end when the test lets them: the concurrency limit under a burst, reorder, pause, cancel, and
 * schedules on a fake clock across a restart.
 */

let cores: TestCore[] = [];
afterEach(async () => {
  for (const c of cores) await c.dispose();
  cores = [];
});

/** An agent whose turns wait for `release`; it counts how many turns run at once. */
function gatedAgent() {
  const waiting: Array<{ text: string; done: () => void }> = [];
  const seen: string[] = [];
  let active = 0;
  let most = 0;
  let n = 0;
  const build = () =>
    agent({ name: 'gated' })
      .onRequest(methods.agent.initialize, () => ({ protocolVersion: 1, agentInfo: { name: 'gated', version: '1' }, authMethods: [], agentCapabilities: {} }))
      .onRequest(methods.agent.session.new, () => ({ sessionId: `g-${++n}` }))
      .onRequest(methods.agent.session.prompt, async (ctx) => {
        const text = ctx.params.prompt
          .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
          .map((b) => b.text)
          .join('');
        seen.push(text);
        active++;
        most = Math.max(most, active);
        await new Promise<void>((done) => waiting.push({ text, done }));
        active--;
        await ctx.client.notify(methods.client.session.update, {
          sessionId: ctx.params.sessionId,
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `did ${text}` } },
        });
        return { stopReason: 'end_turn' };
      })
      .onNotification(methods.agent.session.cancel, () => undefined);
  return {
    build,
    seen,
    waiting,
    get most() {
      return most;
    },
    release() {
      const w = waiting.shift();
      if (!w) throw new Error('no turn is waiting');
      w.done();
      return w.text;
    },
  };
}

async function setup(options: { clock?: FakeClock; dataDir?: string; host?: StubAgentHost; gated?: ReturnType<typeof gatedAgent> } = {}) {
  const host = options.host ?? new StubAgentHost();
  const gated = options.gated ?? gatedAgent();
  const t = await makeCore({ hosts: host.hosts, timeZone: 'UTC', ...(options.clock ? { clock: options.clock } : {}), ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  cores.push(t);
  const { command, args } = host.define('gated', gated.build);
  const agentId = (await t.call('agents.addCustom', { name: 'Gated', command, args, env: {}, cwd: t.work })).id;
  return { t, gated, agentId, host };
}

const runs = async (t: TestCore) => (await t.call('tasks.runs', { inbox: false })).runs;
const byState = (list: TaskRun[], state: TaskRun['state']) => list.filter((r) => r.state === state);

describe('the task queue', () => {
  it('a burst of 20 queued runs never has more than 2 running, starts them in order, and each ends in the Inbox', async () => {
    const { t, gated, agentId } = await setup();
    const tasks = [];
    for (let i = 0; i < 20; i++) tasks.push(await t.call('tasks.save', { task: { name: `job ${i}`, prompts: [`job ${i}`], agentId, folder: t.work } }));
    for (const task of tasks) await t.call('tasks.enqueue', { taskId: task.id });
    for (let done = 0; done < 20; done++) {
      const expected = Math.min(2, 20 - done);
      await t.rec.until(() => gated.waiting.length === expected, `${expected} turns running`, 10_000);
      const now = await runs(t);
      expect(byState(now, 'running')).toHaveLength(expected);
      expect(byState(now, 'queued')).toHaveLength(20 - done - expected);
      // In order: what has started is always the head of the queue (two that start together reach the agent in either order).
      const started = now.filter((r) => r.state !== 'queued').map((r) => r.name);
      expect(new Set(started)).toEqual(new Set(tasks.slice(0, done + expected).map((_, i) => `job ${i}`)));
      gated.release();
      await eventually(async () => byState(await runs(t), 'done').length === done + 1, `${done + 1} runs done`, 10_000);
    }
    expect(gated.most).toBe(2);
    expect([...gated.seen].sort()).toEqual(tasks.map((_, i) => `job ${i}`).sort());
    const inbox = (await t.call('tasks.runs', { inbox: true })).runs;
    expect(inbox).toHaveLength(20);
    expect(inbox.find((r) => r.name === 'job 7')?.lastMessage).toBe('did job 7');
  });

  it('reorder, pause and cancel: a moved run starts next, a held queue starts nothing, a cancelled run never starts', async () => {
    const { t, gated, agentId } = await setup();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      const task = await t.call('tasks.save', { task: { name, prompts: [name], agentId, folder: t.work } });
      ids.push((await t.call('tasks.enqueue', { taskId: task.id })).id);
    }
    await t.rec.until(() => gated.waiting.length === 2, 'a and b running', 10_000);
    await t.call('tasks.queue.move', { runId: ids[4]!, before: ids[2]! });
    await t.call('tasks.cancel', { runId: ids[3]! });
    await t.call('tasks.queue.pause', { paused: true });
    // a and b run at once, their turns reaching the agent in either order: the one released first ends first.
    const finished = gated.waiting[0]!.text;
    const goesOn = finished === 'a' ? 'b' : 'a';
    gated.release();
    await eventually(async () => byState(await runs(t), 'done').length === 1, 'one done', 10_000);
    expect(byState(await runs(t), 'running')).toHaveLength(1);
    await t.call('tasks.queue.pause', { paused: false });
    await t.rec.until(() => gated.waiting.length === 2, 'the next one running', 10_000);
    expect(gated.waiting.map((w) => w.text).sort()).toEqual([goesOn, 'e'].sort());
    gated.release();
    gated.release();
    await t.rec.until(() => gated.waiting.length === 1, 'c running', 10_000);
    gated.release();
    await eventually(async () => byState(await runs(t), 'done').length === 4, 'four done', 10_000);
    expect([...gated.seen.slice(0, 2)].sort()).toEqual(['a', 'b']);
    expect(gated.seen.slice(2)).toEqual(['e', 'c']);
    expect((await runs(t)).find((r) => r.id === ids[3])?.state).toBe('cancelled');
  });

  it('a task of two prompts sends the second when the first turn ends', async () => {
    const { t, gated, agentId } = await setup();
    const task = await t.call('tasks.save', { task: { name: 'two', prompts: ['first', 'second'], agentId, folder: t.work } });
    await t.call('tasks.enqueue', { taskId: task.id });
    await t.rec.until(() => gated.waiting.length === 1, 'first turn', 10_000);
    gated.release();
    await t.rec.until(() => gated.waiting[0]?.text === 'second', 'second turn', 10_000);
    expect((await runs(t))[0]?.state).toBe('running');
    gated.release();
    await eventually(async () => (await runs(t))[0]?.state === 'done', 'done', 10_000);
    expect((await runs(t))[0]?.promptsSent).toBe(2);
  });

  it('"run this again": a task made from a session has its agent, folder and prompts', async () => {
    const { t, gated, agentId } = await setup();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'fix the flaky tests' }] });
    await t.rec.until(() => gated.waiting.length === 1, 'the turn', 10_000);
    gated.release();
    await t.rec.until(() => t.rec.updates().some((u) => u.sessionId === s.id && u.event.type === 'turn_end'), 'turn end', 10_000);
    const input = await t.call('tasks.fromSession', { sessionId: s.id });
    expect(input).toMatchObject({ name: 'fix the flaky tests', prompts: ['fix the flaky tests'], agentId, folder: t.work, place: 'folder' });
  });
});

describe('schedules while the app is open and after it was closed', () => {
  it('a daily task runs at its time on the clock; runs missed while closed are listed (run now / skip), none started', async () => {
    const clock = new FakeClock(Date.parse('2026-05-04T06:00:00Z'));
    const first = await setup({ clock });
    const { t, gated, agentId } = first;
    const task = await t.call('tasks.save', { task: { name: 'morning', prompts: ['triage'], agentId, folder: t.work, schedule: { kind: 'daily', at: '07:00' } } });
    expect(task.nextRuns.map((m) => new Date(m).toISOString())).toEqual(['2026-05-04T07:00:00.000Z', '2026-05-05T07:00:00.000Z', '2026-05-06T07:00:00.000Z']);
    expect(await runs(t)).toHaveLength(0);
    await clock.advance(60 * 60_000);
    await t.rec.until(() => gated.waiting.length === 1, 'the 07:00 run', 10_000);
    expect((await runs(t))[0]).toMatchObject({ trigger: 'schedule', name: 'morning' });
    gated.release();
    await eventually(async () => (await runs(t))[0]?.state === 'done', 'done', 10_000);

    // Closed for three days and a bit: 5, 6 and 7 May are missed.
    await t.core.dispose();
    clock.advanceSync(3 * 24 * 3_600_000 + 30 * 60_000);
    const second = await setup({ clock, dataDir: t.dataDir, gated });
    const u = second.t;
    const missed = (await u.call('tasks.missed', {})).missed;
    expect(missed.map((m) => new Date(m.dueAt).toISOString())).toEqual(['2026-05-05T07:00:00.000Z', '2026-05-06T07:00:00.000Z', '2026-05-07T07:00:00.000Z']);
    expect((await runs(u)).filter((r) => r.state !== 'done')).toHaveLength(0);
    await u.call('tasks.resolveMissed', { taskId: task.id, dueAt: missed[2]!.dueAt, action: 'run' });
    await u.call('tasks.resolveMissed', { taskId: task.id, dueAt: missed[0]!.dueAt, action: 'skip' });
    await u.call('tasks.resolveMissed', { taskId: task.id, dueAt: missed[1]!.dueAt, action: 'skip' });
    expect((await u.call('tasks.missed', {})).missed).toHaveLength(0);
    await u.rec.until(() => gated.waiting.length === 1, 'the missed run started by the user', 10_000);
    expect((await runs(u)).filter((r) => r.trigger === 'missed')).toHaveLength(1);
  });
});
