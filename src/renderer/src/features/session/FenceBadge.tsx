import { useEffect, useState } from 'react';
import { parseHostId } from '@shared/contract/hosts';
import type { FenceView } from '@shared/contract/containers';
import { useApi } from '../../app/api-context';

const NETWORK: Record<FenceView['network'], string> = { none: 'no network', api: "only the agent's API", full: 'full network' };

/** The fence of a session in a container, as it is: what holds, and what the engine cannot enforce. */
export function FenceBadge({ sessionId, hostId }: { sessionId: string; hostId: string }) {
  const api = useApi();
  const [fence, setFence] = useState<FenceView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const inContainer = parseHostId(hostId)?.kind === 'container';
  useEffect(() => {
    if (!inContainer) return;
    let stale = false;
    void api.call('containers.fence', { sessionId }).then((r) => {
      if (stale) return;
      if (r.ok) setFence(r.value.fence);
      else setError(r.error.message);
    });
    return () => {
      stale = true;
    };
  }, [api, sessionId, inContainer]);
  if (!inContainer) return null;
  if (!fence) return error ? <span className="session-fence error small" data-testid="session-fence">Fence unknown: {error}</span> : null;
  const loose = fence.settings.filter((s) => !s.enforced);
  const detail = fence.settings.map((s) => `${s.setting}: ${s.enforced ? '' : 'NOT ENFORCED: '}${s.how}`).join('\n');
  return (
    <span className={`session-fence small${loose.length > 0 ? ' warn' : ''}`} title={`${fence.engine}\n${detail}`} data-testid="session-fence" data-network={fence.network}>
      Fenced: {NETWORK[fence.network]}
      {fence.network === 'api' && <span data-testid="session-fence-hosts"> ({fence.allowHosts.join(', ')})</span>}, {fence.memoryMiB} MiB, {fence.cpus} CPU{fence.cpus === 1 ? '' : 's'}
      {loose.length > 0 && <span data-testid="session-fence-loose"> · not enforced: {loose.map((s) => `${s.setting} (${s.how})`).join('; ')}</span>}
    </span>
  );
}
