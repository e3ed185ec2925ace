import { useTabs } from '../../state/tabs';

/** A shell tab: on this machine, or on an SSH host (`hostId`), in `cwd` (default: the user's home there). */
export function openShellTab(cwd?: string, hostId?: string, hostLabel?: string): string {
  const remote = hostId !== undefined && hostId !== 'local';
  return useTabs.getState().open({
    kind: 'shell',
    title: remote ? `Shell on ${hostLabel ?? hostId}` : 'Shell',
    props: { ...(cwd ? { cwd } : {}), ...(remote ? { hostId, ...(hostLabel ? { hostLabel } : {}) } : {}) },
  });
}
