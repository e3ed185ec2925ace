import { useCallback, useEffect, useRef, useState } from 'react';
import type { ContainerRow, EngineStatus } from '@shared/contract/containers';
import { LOCAL_HOST_ID } from '@shared/contract/hosts';
import { useApi } from '../../../app/api-context';
import { STATE_TEXT, syncHosts, useHosts } from '../../hosts';
import { visibleText } from '../../../ui/VisibleText';
import { formatBytes } from '@shared/format-bytes';
import { ErrorAlert } from '../../../ui/Alert';
import { SectionFields } from './GenericSection';

/**
 * Sessions in containers: the engine of this machine or of an SSH host (or what to install there), the
 * defaults of a new container session (engine, image, fence, idle stop), and the containers Switchboard made
 * on that machine, with Stop and Remove.
 */
export function ContainersSettingsSection() {
  const api = useApi();
  const hosts = useHosts((s) => s.hosts);
  useEffect(() => syncHosts(api), [api]);
  const [hostId, setHostId] = useState<string>(LOCAL_HOST_ID);
  const sshHosts = hosts.filter((h) => h.kind === 'ssh');
  const name = visibleText(hosts.find((h) => h.id === hostId)?.label ?? hostId);
  const label = hostId === LOCAL_HOST_ID ? 'This machine' : `The host ${name}`;
  const [engine, setEngine] = useState<EngineStatus | null>(null);
  const [rows, setRows] = useState<ContainerRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  // Only the newest read is shown: an older one (this machine's, still on its way when another host was chosen)
  // would otherwise show that machine's engine and containers under the host's name.
  const reads = useRef(0);
  const refresh = useCallback(async () => {
    const read = ++reads.current;
    setError(null);
    const e = await api.call('containers.engine', { hostId });
    if (read !== reads.current) return;
    setEngine(e.ok ? e.value : { hostId, engine: null, problem: e.error.message });
    if (!e.ok || !e.value.engine) return setRows([]);
    const r = await api.call('containers.list', { hostId });
    if (read !== reads.current) return;
    if (r.ok) setRows(r.value.containers);
    else setError(r.error.message);
  }, [api, hostId]);
  useEffect(() => void refresh(), [refresh]);

  const act = async (what: 'containers.stop' | 'containers.remove', id: string) => {
    setBusy(id);
    setError(null);
    const r = await api.call(what, { hostId, id });
    if (!r.ok) setError(r.error.message);
    setBusy(null);
    await refresh();
  };

  return (
    <div className="settings-containers" data-testid="settings-containers">
      {sshHosts.length > 0 && (
        <label className="field">
          <span>Containers on</span>
          <select
            value={hostId}
            onChange={(e) => {
              setEngine(null);
              setRows(null);
              setHostId(e.target.value);
            }}
            aria-label="Containers on"
            data-testid="containers-host"
          >
            <option value={LOCAL_HOST_ID}>This machine</option>
            {sshHosts.map((h) => (
              <option key={h.id} value={h.id}>
                {visibleText(h.label)} ({STATE_TEXT[h.state].toLowerCase()})
              </option>
            ))}
          </select>
        </label>
      )}
      <p className="small" data-testid="containers-engine">
        {engine === null ? (hostId === LOCAL_HOST_ID ? 'Looking for a container engine…' : `Connecting to ${name} and looking for its container engine…`) : engine.engine ? `${label} runs containers with ${engine.engine}.` : engine.problem}
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
