import { useCallback, useEffect, useState } from 'react';
import type { ContainerRow, EngineStatus } from '@shared/contract/containers';
import { useApi } from '../../../app/api-context';
import { formatBytes } from '@shared/format-bytes';
import { ErrorAlert } from '../../../ui/Alert';
import { SectionFields } from './GenericSection';

/**
 * Sessions in containers: the engine of this machine (or what to install), the defaults of a new container
 * session (engine, image, fence, idle stop), and the containers Switchboard made, with Stop and Remove.
 */
export function ContainersSettingsSection() {
  const api = useApi();
  const [engine, setEngine] = useState<EngineStatus | null>(null);
  const [rows, setRows] = useState<ContainerRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    const e = await api.call('containers.engine', { hostId: 'local' });
    setEngine(e.ok ? e.value : { hostId: 'local', engine: null, problem: e.error.message });
    if (!e.ok || !e.value.engine) return setRows([]);
    const r = await api.call('containers.list', { hostId: 'local' });
    if (r.ok) setRows(r.value.containers);
    else setError(r.error.message);
  }, [api]);
  useEffect(() => void refresh(), [refresh]);

  const act = async (what: 'containers.stop' | 'containers.remove', id: string) => {
    setBusy(id);
    setError(null);
    const r = await api.call(what, { hostId: 'local', id });
    if (!r.ok) setError(r.error.message);
    setBusy(null);
    await refresh();
  };

  return (
    <div className="settings-containers" data-testid="settings-containers">
      <p className="small" data-testid="containers-engine">
        {engine === null ? 'Looking for a container engine…' : engine.engine ? `This machine runs containers with ${engine.engine}.` : engine.problem}
      </p>
      <SectionFields section="containers" />
      <h3>Switchboard’s containers</h3>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      {rows && rows.length === 0 && <p className="muted small">None.</p>}
      {rows && rows.length > 0 && (
        <table className="small" data-testid="containers-list">
          <thead>
            <tr>
              <th>Container</th>
              <th>Session</th>
              <th>State</th>
              <th>Size</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id} data-testid="containers-row" data-state={c.state}>
                <td title={`${c.id}\n${c.image}`}>{c.name}</td>
                <td>{c.sessionId.slice(0, 8)}</td>
                <td>{c.state}</td>
                <td>{c.sizeBytes === null ? '?' : formatBytes(c.sizeBytes)}</td>
                <td>
                  {c.state === 'running' && (
                    <button disabled={busy === c.id} onClick={() => void act('containers.stop', c.id)} data-testid="containers-stop">
                      Stop
                    </button>
                  )}
                  <button disabled={busy === c.id} onClick={() => void act('containers.remove', c.id)} data-testid="containers-remove">
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted small">Containers you made yourself are never listed, stopped or removed here.</p>
    </div>
  );
}
