import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEvents, createThread, type PlanThreadEntry, type ThreadEvent } from '../../../src/shared/acp-thread';
import { MAX_PLANS } from '../../../src/shared/acp-thread/plans-by-id';
import { makeCore, promptAndWait, type TestCore } from './helpers';

/** Issue 40: plans by id (plan_update / plan_removed): several per session, each edited in place, withdrawn when the agent says so. */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const plans = async (sessionId: string) => (await t.call('sessions.state', { sessionId })).thread.entries.filter((e): e is PlanThreadEntry => e.kind === 'plan');

describe('plans by id', () => {
  it('keeps one entry per plan id, edited in place across turns, and marks a removed plan', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'plans');
    let shown = await plans(s.id);
    expect(shown.map((p) => p.planId)).toEqual(['a', 'b']);
    expect(shown[0]!.entries.map((e) => e.status)).toEqual(['completed', 'in_progress']);
    expect(shown[1]).toMatchObject({ planId: 'b', entries: [], markdown: '# Docs\n- [ ] README', removed: true });

    // A later turn edits plan "a" where it is, not as a new plan.
    await promptAndWait(t, s.id, 'plans more');
    shown = await plans(s.id);
    expect(shown.map((p) => p.planId)).toEqual(['a', 'b']);
    expect(shown[0]!.entries.map((e) => e.status)).toEqual(['completed', 'completed']);
    // No update was refused as unknown or invalid.
    expect(t.rec.of('session.warning').filter((w) => w.sessionId === s.id)).toEqual([]);
  });

  it('advertises clientCapabilities.plan', async () => {
    const agentId = await t.addAgent();
    await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await t.call('agents.log', { agentId })).text).toContain('"plan":{}');
  });

  it('bounds what an agent inventing plan ids can grow', () => {
    const events: ThreadEvent[] = Array.from({ length: 500 }, (_, i) => ({
      type: 'update',
      update: { sessionUpdate: 'plan_update', plan: { type: 'items', planId: `p${i}`, entries: [{ content: 'x', priority: 'low', status: 'pending' }] } } as never,
    }));
    const state = applyEvents(createThread(), events);
    expect(state.entries.length).toBe(MAX_PLANS);
    expect(Object.keys(state.planIds ?? {}).length).toBe(MAX_PLANS);
  });
});
