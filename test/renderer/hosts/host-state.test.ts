import { beforeEach, describe, expect, it } from 'vitest';
import { ok, type Result } from '@shared/contract';
import type { HostInfo } from '@shared/contract/hosts';
import { syncHosts, useHosts } from '../../../src/renderer/src/features/hosts/state';
import { FakeApi, settle } from '../support/fake-api';
import { setConnected } from '../../../src/renderer/src/ipc/connection';

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

describe('the host state after the page lost its own connection to the core', () => {
  beforeEach(() => {
    useHosts.setState(useHosts.getInitialState(), true);
    setConnected(true);
  });

  it('the hosts list is read again once the connection is back: a state announced meanwhile is not missed', async () => {
    let hosts = [host('ssh:devbox', 'reconnecting')];
    const api = new FakeApi().handle('hosts.list', () => ok({ hosts }));
    syncHosts(api);
    await settle();
    expect(stateOf('ssh:devbox')).toBe('reconnecting');
    // The websocket drops; the host reconnects meanwhile (its announcement never reaches the page).
    setConnected(false);
    hosts = [host('ssh:devbox', 'connected')];
    setConnected(true);
    await settle();
    expect(stateOf('ssh:devbox')).toBe('connected');
  });

  it('several sessions on one host show that host\'s one state, through a drop of the page\'s connection', async () => {
    let hosts = [host('ssh:devbox', 'connected'), host('ssh:other', 'connected')];
    const api = new FakeApi().handle('hosts.list', () => ok({ hosts }));
    syncHosts(api);
    await settle();
    // What each session header shows of its host (Header.tsx reads it so).
    const sessions = [{ hostId: 'ssh:devbox' }, { hostId: 'ssh:devbox' }, { hostId: 'ssh:other' }];
    const shown = () => sessions.map((s) => useHosts.getState().hosts.find((h) => h.id === s.hostId)?.state);
    api.emit('hosts.state', { hostId: 'ssh:devbox', state: 'reconnecting', error: null });
    expect(shown()).toEqual(['reconnecting', 'reconnecting', 'connected']);
    setConnected(false);
    hosts = [host('ssh:devbox', 'connected'), host('ssh:other', 'reconnecting')];
    setConnected(true);
    await settle();
    expect(shown()).toEqual(['connected', 'connected', 'reconnecting']);
  });
});
