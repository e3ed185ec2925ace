import { beforeEach, describe, expect, it } from 'vitest';
import { ok, type Result } from '@shared/contract';
import type { HostInfo } from '@shared/contract/hosts';
import { syncHosts, useHosts } from '../../../src/renderer/src/features/hosts/state';
import { FakeApi, settle } from '../support/fake-api';

const host = (id: string, state: HostInfo['state']): HostInfo => ({ id, kind: 'ssh', label: id.slice(4), source: 'added', resolved: null, state, error: null });
const stateOf = (id: string) => useHosts.getState().hosts.find((h) => h.id === id)?.state;

describe('the host state the UI shows follows the core (features/hosts)', () => {
  beforeEach(() => useHosts.setState(useHosts.getInitialState(), true));

  it('a reconnect that succeeds while the list is being read is not undone by that older list', async () => {
    let answer!: (r: Result<{ hosts: HostInfo[] }>) => void;
    const api = new FakeApi().handle('hosts.list', () => new Promise((r) => (answer = r)));
    syncHosts(api);
    // The core read its list while the host was reconnecting; the reconnect succeeds before the answer arrives.
    api.emit('hosts.state', { hostId: 'ssh:devbox', state: 'connected', error: null });
    answer(ok({ hosts: [host('ssh:devbox', 'reconnecting')] }));
    await settle();
    expect(stateOf('ssh:devbox')).toBe('connected');
  });

  it('a host the list did not hold yet is read again when the core announces its state', async () => {
    let hosts: HostInfo[] = [];
    const api = new FakeApi().handle('hosts.list', () => ok({ hosts }));
    syncHosts(api);
    await settle();
    hosts = [host('ssh:new', 'connected')];
    api.emit('hosts.state', { hostId: 'ssh:new', state: 'connected', error: null });
    await settle();
    expect(stateOf('ssh:new')).toBe('connected');
  });
});
