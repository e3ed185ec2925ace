import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../support/fake-clock';
import { eventually, makeCore, type TestCore } from '../acp/helpers';
import type { TaskRun } from '../../../src/shared/contract/tasks';

/**
 * The spend guard with the scenario agent (its own process) reporting usage: with its cost, with tokens only,
 * and by the wall clock. A run that crosses a limit is paused at the update that crossed it, its turn cancelled,
 * its session kept; Continue with +X lets it go on to the raised limit; Stop ends it.
 */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const run = async (id: string): Promise<TaskRun> => (await t!.call('tasks.runs', { inbox: false })).runs.find((r) => r.id === id)!;
const turnEnds = (sessionId: string) =>
  t!.rec
    .updates()
    .filter((u) => u.sessionId === sessionId && u.event.type === 'turn_end')
    .map((u) => (u.event.type === 'turn_end' ? u.event.stopReason : null));

async function queued(prompt: string, limits: Record<string, number>, clock?: FakeClock) {
  t = await makeCore({ timeZone: 'UTC', ...(clock ? { clock } : {}) });
  const agentId = await t.addAgent();
  const task = await t.call('tasks.save', { task: { name: 'spender', prompts: [prompt], agentId, folder: t.work, limits } });
  return (await t.call('tasks.enqueue', { taskId: task.id })).id;
}

const pausedRun = (id: string) => eventually(async () => ((await run(id)).state === 'paused' ? run(id) : null), 'the run paused', 20_000);

describe('the spend guard', () => {
  it('an agent reporting its cost: paused at the update that reached the money limit, cancelled, Continue with +X goes on, Stop ends it', async () => {
    const id = await queued('spend 200 1000 0.01', { runMoney: 0.05 });
    const paused = await pausedRun(id);
    // Within one update: the pause records the first reported total at or over the limit.
    expect(paused.pause).toMatchObject({ limit: 'runMoney', allowed: 0.05, spent: 0.05 });
    expect(paused.moneySource).toBe('agent');
    expect(paused.inbox).toBe('open');
    const sessionId = paused.sessionId!;
    await t!.rec.until(() => turnEnds(sessionId).length === 1, 'the turn to end');
    expect(turnEnds(sessionId)).toEqual(['cancelled']);
    expect(t!.rec.of('tasks.paused').map((p) => p.run.id)).toEqual([id]);
    // Nothing lost: the session is still open with what the agent did.
    const state = await t!.call('sessions.state', { sessionId });
    expect(state.session.status).toBe('idle');
    expect(JSON.stringify(state.thread.entries)).toContain('step 5');

    // What the agent spent until the cancel reached it counts: +X is beyond that.
    const before = (await run(id)).money;
    const resumed = await t!.call('tasks.continue', { runId: id, more: 0.03, prompt: 'spend 200 1000 0.01' });
    expect(resumed.state).toBe('running');
    const allowed = Math.max(0.05, before) + 0.03;
    const again = await pausedRun(id);
    expect(again.pause!.allowed).toBeCloseTo(allowed, 9);
    expect(again.pause!.spent).toBeGreaterThanOrEqual(allowed - 1e-9);
    expect(again.pause!.spent).toBeLessThan(allowed + 0.01 - 1e-9);
    await t!.rec.until(() => turnEnds(sessionId).length === 2, 'the second turn to end');
    expect(turnEnds(sessionId)).toEqual(['cancelled', 'cancelled']);

    const stopped = await t!.call('tasks.stop', { runId: id });
    expect(stopped).toMatchObject({ state: 'cancelled', inbox: 'open' });
    const usage = await t!.call('tasks.usage', { days: 14 });
    expect(usage.days).toHaveLength(14);
    expect(usage.byTask[0]!.money).toBeGreaterThanOrEqual(0.08);
  });

  it('an agent reporting tokens only: paused at the token limit, its money priced by the table', async () => {
    const id = await queued('spend 200 1000 -', { runTokens: 4500 });
    const paused = await pausedRun(id);
    expect(paused.pause).toMatchObject({ limit: 'runTokens', allowed: 4500, spent: 5000 });
    expect(paused.moneySource).toBe('prices');
    const prices = await t!.call('tasks.prices', {});
    const fallback = prices.prices.find((p) => p.model === '*')!.perMillion;
    expect(paused.money).toBeCloseTo((paused.tokens * fallback) / 1e6, 9);
    await t!.rec.until(() => turnEnds(paused.sessionId!).length === 1, 'the turn to end');
    expect(turnEnds(paused.sessionId!)).toEqual(['cancelled']);
  });

  it('a wall-clock limit pauses a run that spends nothing', async () => {
    const clock = new FakeClock(Date.parse('2026-05-04T06:00:00Z'));
    const id = await queued('slow', { runMinutes: 2 }, clock);
    const started = await eventually(async () => ((await run(id)).sessionId ? run(id) : null), 'the run started', 20_000);
    await t!.rec.until(() => t!.rec.updates().some((u) => u.sessionId === started.sessionId && u.event.type === 'update'), 'the agent to stream');
    await clock.advance(60_000);
    expect((await run(id)).state).toBe('running');
    await clock.advance(60_000);
    const paused = await pausedRun(id);
    expect(paused.pause).toMatchObject({ limit: 'runMinutes', allowed: 2 });
    await t!.rec.until(() => turnEnds(started.sessionId!).length === 1, 'the turn to end');
    expect(turnEnds(started.sessionId!)).toEqual(['cancelled']);
  });

  it('an interactive session that opts in is paused at its limit too, and goes on after Continue', async () => {
    t = await makeCore({ timeZone: 'UTC' });
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const { runId } = await t.call('tasks.guardSession', { sessionId: s.id, limits: { runTokens: 3000 } });
    await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'spend 200 1000 -' }] });
    const paused = await pausedRun(runId!);
    expect(paused.pause).toMatchObject({ limit: 'runTokens', spent: 3000 });
    await t.rec.until(() => turnEnds(s.id).length === 1, 'the turn to end');
    expect(turnEnds(s.id)).toEqual(['cancelled']);
    await t.call('tasks.continue', { runId: runId!, more: 10_000 });
    await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'spend 3 500 -' }] });
    await t.rec.until(() => turnEnds(s.id).length === 2, 'the second turn to end');
    expect(turnEnds(s.id)).toEqual(['cancelled', 'end_turn']);
    expect((await run(runId!)).state).toBe('running');
  });

  it("all agents' daily limit holds the queue: a run waits, said why, and starts when the limit is raised", async () => {
    const id = await queued('spend 200 1000 -', { runTokens: 2000 });
    await pausedRun(id);
    await t!.call('settings.set', { key: 'tasks.dailyLimits', value: { dayTokens: 2000 } });
    const task = (await t!.call('tasks.list', {})).tasks[0]!;
    const next = await t!.call('tasks.enqueue', { taskId: task.id });
    expect(next.state).toBe('held');
    expect(next.holdReason).toMatch(/all agents reached today's limit of 2000 tokens/);
    await t!.call('settings.set', { key: 'tasks.dailyLimits', value: { dayTokens: 1_000_000 } });
    const started = await eventually(async () => ((await run(next.id)).sessionId ? run(next.id) : null), 'the held run to start', 20_000);
    // It runs to its own limit (2000 more tokens) and pauses; the core is not closed mid-stream.
    await pausedRun(next.id);
    await t!.rec.until(() => turnEnds(started.sessionId!).length === 1, 'its turn to end');
  });
});
