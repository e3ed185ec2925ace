import { afterEach, describe, expect, it, vi } from 'vitest';
import { ok } from '@shared/contract';
import { stepDuration, syncHosts, useHosts } from '../../../src/renderer/src/features/hosts/state';
import { FakeApi, settle } from '../support/fake-api';

const ORDER = ['resolving', 'authenticating', 'preparing'] as const;

describe('the connect steps of a host, with their timing (features/hosts)', () => {
  afterEach(() => vi.useRealTimers());

  it('times each step from the progress events, and the last one until the connect ends', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    const api = new FakeApi().handle('hosts.list', () => ok({ hosts: [] }));
    syncHosts(api);
    await settle();
    api.emit('hosts.state', { hostId: 'ssh:devbox', state: 'connecting', error: null });
    api.emit('hosts.progress', { hostId: 'ssh:devbox', step: 'resolving' });
    vi.setSystemTime(1_000_200);
    api.emit('hosts.progress', { hostId: 'ssh:devbox', step: 'authenticating' });
    vi.setSystemTime(1_012_400);
    api.emit('hosts.progress', { hostId: 'ssh:devbox', step: 'preparing' });
    vi.setSystemTime(1_013_000);
    const under = useHosts.getState().timings['ssh:devbox'];
    expect(ORDER.map((s) => stepDuration(under, s, ORDER, Date.now()))).toEqual(['0.2 s', '12 s', '0.6 s']);
    // The connect fails 2 s later: the step it stopped at keeps its time.
    vi.setSystemTime(1_015_000);
    api.emit('hosts.state', { hostId: 'ssh:devbox', state: 'disconnected', error: 'the helper did not answer within 20 s' });
    vi.setSystemTime(1_100_000);
    const done = useHosts.getState().timings['ssh:devbox'];
    expect(ORDER.map((s) => stepDuration(done, s, ORDER, Date.now()))).toEqual(['0.2 s', '12 s', '2.6 s']);
    // A new connect starts its own timings.
    api.emit('hosts.progress', { hostId: 'ssh:devbox', step: 'resolving' });
    expect(useHosts.getState().timings['ssh:devbox']?.began).toEqual({ resolving: 1_100_000 });
  });
});
