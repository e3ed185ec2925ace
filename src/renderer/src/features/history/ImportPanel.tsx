import { useCallback, useEffect, useState } from 'react';
import type { ImportProgress, ImportSourceSummary } from '@shared/contract/history-import';
import { formatBytes } from '@shared/format-bytes';
import { useApi } from '../../app/api-context';
import { saveSetting, useSetting } from '../../app/settings';
import { VisibleText } from '../../ui/VisibleText';
import { syncHosts, useHosts } from '../hosts';
import { formatDate } from './format';

/**
 * History → Import: what each agent's own command-line tool stored on this machine and on each connected SSH
 * host (sessions, size, dates),
 * imported into History with a progress bar and Cancel, and a switch per agent that keeps the import going
 * (new sessions and new lines appear as the tool writes them).
 */
export function ImportPanel({ onClose }: { onClose(): void }) {
  const api = useApi();
  const [sources, setSources] = useState<ImportSourceSummary[] | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const keep = useSetting('history.importKeep');
  // The hosts whose stores cannot be listed until they connect.
  const hosts = useHosts((s) => s.hosts);
  const offline = hosts.filter((h) => h.kind === 'ssh' && h.state !== 'connected');
  useEffect(() => syncHosts(api), [api]);

  const scan = useCallback(async () => {
    const r = await api.call('historyImport.scan', {});
    if (!r.ok) return setError(r.error.message);
    setSources(r.value.sources);
    setChosen((c) => (c.size ? c : new Set(r.value.sources.filter((s) => s.found && s.sessions > s.imported).map((s) => s.key))));
  }, [api]);

  useEffect(() => {
    void scan();
    // A host that connects, or the window coming back: its stores are looked at again.
    const onFocus = () => void scan();
    window.addEventListener('focus', onFocus);
    const offHosts = api.on('hosts.state', (e) => e.state === 'connected' && void scan());
    void api.call('historyImport.status', {}).then((r) => r.ok && setProgress(r.value.progress));
    const offProgress = api.on('historyImport.progress', (p) => {
      setProgress(p);
      if (!p.running) void scan();
    });
    return () => {
      window.removeEventListener('focus', onFocus);
      offHosts();
      offProgress();
    };
  }, [api, scan]);

  const start = async () => {
    setError(null);
    const r = await api.call('historyImport.start', { sources: [...chosen] });
    if (!r.ok) setError(r.error.message);
    else setProgress(r.value.progress);
  };
  const setKeep = async (key: string, on: boolean) => {
    const next = on ? [...new Set([...keep, key])] : keep.filter((s) => s !== key);
    const failed = await saveSetting(api, 'history.importKeep', next);
    if (failed) setError(failed);
  };

  const running = progress?.running === true;
  const fraction = progress && progress.bytesTotal > 0 ? progress.bytesDone / progress.bytesTotal : progress && progress.filesTotal > 0 ? progress.filesDone / progress.filesTotal : 0;

  return (
    <section className="history-import" data-testid="history-import" aria-label="Import the agents' own sessions">
      <header className="history-import-head">
        <strong>Import the agents’ own sessions</strong>
        <span className="muted small">Sessions their command-line tools stored on this machine and on connected hosts. Nothing in those folders is changed.</span>
        <button className="link-button" onClick={onClose} data-testid="history-import-close">
          Close
        </button>
      </header>
      {sources === null ? (
        <div className="muted">Looking for the agents’ stores…</div>
      ) : (
        <table className="history-import-table">
          <thead>
            <tr>
              <th />
              <th>Agent</th>
              <th>Host</th>
              <th>Sessions</th>
              <th>Size</th>
              <th>From – to</th>
              <th>In History</th>
              <th title="New sessions and new lines are picked up as the agent writes them">Keep importing</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((s) => (
              <tr key={s.key} data-testid="history-import-source" data-source={s.source} data-host={s.hostId} className={s.found ? '' : 'muted'}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Import ${s.name} (${s.hostLabel})`}
                    disabled={!s.found || running}
                    checked={chosen.has(s.key)}
                    onChange={(e) => {
                      const next = new Set(chosen);
                      if (e.target.checked) next.add(s.key);
                      else next.delete(s.key);
                      setChosen(next);
                    }}
                  />
                </td>
                <td title={s.location}>{s.name}</td>
                <td data-testid="history-import-host">{s.hostLabel}</td>
                <td data-testid="history-import-sessions">{s.found ? s.sessions : 'not found'}</td>
                <td>{s.found ? formatBytes(s.bytes) : ''}</td>
                <td>{s.from !== null && s.to !== null ? `${formatDate(s.from)} – ${formatDate(s.to)}` : ''}</td>
                <td data-testid="history-import-imported">{s.imported}</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Keep importing ${s.name} (${s.hostLabel})`}
                    disabled={!s.found}
                    checked={keep.includes(s.key)}
                    onChange={(e) => void setKeep(s.key, e.target.checked)}
                    data-testid="history-import-keep"
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {offline.length > 0 && (
        <div className="muted small" data-testid="history-import-offline">
          Not connected: {offline.map((h) => h.label).join(', ')}. Connect a host (Hosts, in the sidebar) to list its agents’ stores here.
        </div>
      )}
      {running ? (
        <div className="history-import-progress" data-testid="history-import-progress">
          <progress max={1} value={fraction} aria-label="Import progress" />
          <span className="small">
            {progress.filesDone} of {progress.filesTotal} files · {formatBytes(progress.bytesDone)} of {formatBytes(progress.bytesTotal)}
          </span>
          <button onClick={() => void api.call('historyImport.cancel', {})} data-testid="history-import-cancel">
            Cancel
          </button>
        </div>
      ) : (
        <div className="form-actions">
          <button className="primary" disabled={chosen.size === 0} onClick={() => void start()} data-testid="history-import-start">
            Import
          </button>
        </div>
      )}
      {progress && !progress.running && progress.filesTotal + progress.skippedCount > 0 && (
        <div className="history-import-result small" data-testid="history-import-result" role="status">
          {progress.cancelled ? 'Cancelled: what was imported stays; Import goes on from there. ' : ''}
          {progress.sessions === 1 ? '1 session imported or updated' : `${progress.sessions} sessions imported or updated`}
          {progress.keptAsText > 0 && ` · ${progress.keptAsText} ${progress.keptAsText === 1 ? 'entry' : 'entries'} of a newer format kept as text`}
          {progress.error && <span className="error"> · {progress.error}</span>}
          {progress.skippedCount > 0 && (
            <details>
              <summary>
                {progress.skippedCount} left out{progress.skippedCount > progress.skipped.length ? ` (the first ${progress.skipped.length} listed)` : ''}
              </summary>
              <ul className="history-import-skips" data-testid="history-import-skips">
                {progress.skipped.map((s, i) => (
                  <li key={i}>
                    <code>
                      <VisibleText text={s.path} />
                    </code>
                    : {s.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
      {error && (
        <div className="error small" role="alert">
          {error}
        </div>
      )}
    </section>
  );
}
