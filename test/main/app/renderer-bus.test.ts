import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../../../src/main/core/base/event-bus';
import { makeCore, promptAndWait, type TestCore } from '../acp/helpers';

/**
 * The EventBus is what goes to the renderer. Services learn of each other's doings (a turn ended, an agent's
 * process changed state) through their in-process events: nothing in the app core connects to the bus.
 */

let t: TestCore | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  await t?.dispose();
  t = null;
});

describe('the renderer bus', () => {
  it('has no listener in main: a turn runs, checkpoints and the supervisor follow, and only the test listens', async () => {
    const connect = vi.spyOn(EventBus.prototype, 'connect');
    t = await makeCore({ checkpoints: true });
    // makeCore's recorder is the one sink (the transports connect theirs when a window does).
    expect(connect).toHaveBeenCalledTimes(1);
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const end = await promptAndWait(t, sessionId, 'hello');
    expect(end.stopReason).toBe('end_turn');
    // The supervisor heard the process start (from the pool's event), and checkpoints the turn (from the sessions service's).
    const metrics = (await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId);
    expect(metrics?.pid).toBeGreaterThan(0);
    await t.core.checkpoints.idle();
    const turns = await t.call('checkpoints.listTurns', { sessionId });
    expect(turns.turns).toHaveLength(1);
    expect(connect).toHaveBeenCalledTimes(1);
  }, 60_000);
});
