import { describe, expect, it } from 'vitest';
import { containerHostId, filesHostId, hostIdSchema, hostKindOf, hostLabel, parseHostId, sharesThisMachine } from '../../src/shared/contract/hosts';

describe('host ids are kind:rest', () => {
  it('reads this machine, SSH hosts and containers on either, and refuses anything else', () => {
    expect(parseHostId('local')).toEqual({ kind: 'local' });
    expect(parseHostId('ssh:devbox')).toEqual({ kind: 'ssh', target: 'devbox' });
    expect(parseHostId('ssh:me@box.example:2222')).toEqual({ kind: 'ssh', target: 'me@box.example:2222' });
    expect(parseHostId(containerHostId('5d1c-a', 'local'))).toEqual({ kind: 'container', key: '5d1c-a', on: 'local' });
    expect(parseHostId('container:5d1c@ssh:me@box:2222')).toEqual({ kind: 'container', key: '5d1c', on: 'ssh:me@box:2222' });
    for (const bad of ['', 'local:', 'ssh:-oProxyCommand=x', 'container:abc', 'container:@local', 'container:a@container:b@local', 'container:a b@local', 'container:a@ssh:', 'vm:x', 'container:a@nowhere']) {
      expect({ bad, ok: hostIdSchema.safeParse(bad).success }).toEqual({ bad, ok: false });
    }
  });

  it('answers capability questions by kind, not by comparing with "local"', () => {
    expect(sharesThisMachine('local')).toBe(true);
    expect(sharesThisMachine('ssh:devbox')).toBe(false);
    expect(sharesThisMachine('container:k@local')).toBe(false);
    expect(filesHostId('container:k@local')).toBe('local');
    expect(filesHostId('container:k@ssh:devbox')).toBe('ssh:devbox');
    expect(filesHostId('ssh:devbox')).toBe('ssh:devbox');
    expect(hostKindOf('container:k@ssh:devbox')).toBe('container');
    expect(hostLabel('container:k@ssh:devbox')).toBe('a container on devbox');
    expect(hostLabel('container:k@local')).toBe('a container on this machine');
  });
});
