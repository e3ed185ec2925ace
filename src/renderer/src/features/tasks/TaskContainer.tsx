import { useEffect, useState } from 'react';
import type { ContainerChoice } from '@shared/contract/containers';
import { useApi } from '../../app/api-context';

/**
 * "In a container": the run's session in a container made for it, from an image or the repository's
 * devcontainer.json. Offered only where a container engine is there (its host's); the fence is Settings → Containers'.
 */
export function TaskContainer({ hostId, value, onChange }: { hostId: string; value: ContainerChoice | null; onChange(v: ContainerChoice | null): void }) {
  const api = useApi();
  const [engine, setEngine] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setEngine(null);
    void api.call('containers.engine', { hostId }).then((r) => live && r.ok && setEngine(r.value.engine));
    return () => {
      live = false;
    };
  }, [api, hostId]);
  if (!engine && !value) return null;
  const source = value?.source;
  return (
    <fieldset className="task-container" data-testid="task-container">
      <legend>Container</legend>
      <label>
        Runs{' '}
        <select
          value={source ? source.kind : 'none'}
          onChange={(e) => {
            const kind = e.target.value;
            onChange(kind === 'none' ? null : kind === 'repo' ? { source: { kind: 'repo', allow: [] }, fence: {} } : { source: { kind: 'image', image: '' }, fence: {} });
          }}
          data-testid="task-container-kind"
        >
          <option value="none">Not in a container</option>
          <option value="image">In a container from an image</option>
          <option value="repo">In the repository’s dev container (devcontainer.json)</option>
        </select>
      </label>
      {source?.kind === 'image' && (
        <label>
          Image <input value={source.image} onChange={(e) => onChange({ ...value!, source: { kind: 'image', image: e.target.value } })} placeholder="node:22" maxLength={300} data-testid="task-container-image" />
        </label>
      )}
      {value && <p className="muted small">A container is made for each run{engine ? ` (${engine})` : ''}, fenced as Settings → Containers says; it is removed when the run’s session closes.</p>}
    </fieldset>
  );
}
