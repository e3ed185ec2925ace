import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ok } from '@shared/contract';
import { useMetrics } from '../../../src/renderer/src/features/agents/metrics';
import { formatElapsed, syncOverview, useOverview } from '../../../src/renderer/src/features/overview/state';
import { FakeApi, settle } from '../support/fake-api';
import { ask, endTurn, FakeSession, sessionInfo } from '../support/fake-session';

describe('overview state (features/overview/state)', () => {
  let api: FakeApi;
  let session: FakeSession;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(100_000);
    useOverview.setState(useOverview.getInitialState(), true);
    useMetrics.setState(useMetrics.getInitialState(), true);
    api = new FakeApi().handle('agents.metrics', () => ok({ agents: [] }));
    session = new FakeSession(api, { id: 's1', updatedAt: 90_000 });
  });
  afterEach(() => vi.useRealTimers());

  it('times each turn and keeps the context used, for every live session', async () => {
    api.handle('sessions.live', () => ok({ sessions: [] }));
    syncOverview(api);
    await settle();
    session.send(ask('p1', 'go'));
    expect(useOverview.getState().turns.s1).toEqual({ startedAt: 100_000, waitedMs: 0, waitingSince: null, used: null, size: null });
    session.send({ type: 'update', update: { sessionUpdate: 'usage_update', used: 5000, size: 200_000 } });
    expect(useOverview.getState().turns.s1).toMatchObject({ used: 5000, size: 200_000 });
    session.send(endTurn('p1'));
    expect(useOverview.getState().turns.s1?.startedAt).toBeNull();
    session.setState({ status: 'closed' });
    expect(useOverview.getState().turns.s1).toBeUndefined();
  });

  it('picks up sessions already live: a turn under way since its last change, and its usage', async () => {
    session.record(ask('p1', 'go'), { type: 'update', update: { sessionUpdate: 'usage_update', used: 10, size: 100 } });
    api.handle('sessions.live', () => ok({ sessions: [sessionInfo({ id: 's1', status: 'working', updatedAt: 90_000 })] }));
    syncOverview(api);
    await settle();
    expect(useOverview.getState().turns.s1).toEqual({ startedAt: 90_000, waitedMs: 0, waitingSince: null, used: 10, size: 100 });
  });

  it('follows the supervisor’s samples of the agents', async () => {
    api.handle('sessions.live', () => ok({ sessions: [] }));
    syncOverview(api);
    await settle();
    const sample = { agentId: 'a', folder: '/one', pid: 3, processes: 1, rssBytes: 1, cpuPercent: 1, sampledAt: 1, restarts: 0, nextRestartAt: null, gaveUp: null, unresponsive: null, throttled: null, lastExit: null };
    api.emit('agent.metrics', { agents: [sample] });
    expect(Object.values(useMetrics.getState().metrics)).toEqual([sample]);
  });

  it('writes a turn’s time in seconds, minutes or hours', () => {
    expect([formatElapsed(-5), formatElapsed(59_999), formatElapsed(61_000), formatElapsed(3_725_000)]).toEqual(['0s', '59s', '1m 01s', '1h 02m']);
  });
});
