import { beforeEach, describe, expect, it } from 'vitest';
import { tabKinds } from '../../../src/renderer/src/app/contributions';
import { openShellTab } from '../../../src/renderer/src/features/shell';
import { useTabs } from '../../../src/renderer/src/state/tabs';

describe('a shell tab on a host (features/shell)', () => {
  beforeEach(() => useTabs.setState(useTabs.getInitialState(), true));

  it('opens on the host it is given, named for it, and comes back there after a restart', () => {
    const id = openShellTab('/home/dev/project', 'ssh:devbox', 'devbox');
    const tab = useTabs.getState().tabs[id]!;
    expect(tab.title).toBe('Shell on devbox');
    expect(tab.props).toMatchObject({ cwd: '/home/dev/project', hostId: 'ssh:devbox' });
    expect(tabKinds.get('shell')!.persist!({ ...tab, props: { ...tab.props, ptyId: 'p1' } })).toEqual({ cwd: '/home/dev/project', hostId: 'ssh:devbox', hostLabel: 'devbox' });
  });

  it("this machine's shell names no host", () => {
    const id = openShellTab(undefined, 'local');
    const tab = useTabs.getState().tabs[id]!;
    expect(tab.title).toBe('Shell');
    expect(tab.props).toEqual({});
  });
});
