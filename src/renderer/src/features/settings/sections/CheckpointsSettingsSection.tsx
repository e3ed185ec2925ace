import { useCallback, useEffect, useState } from 'react';
import type { CheckpointFolder, CheckpointSettings, CheckpointStatus } from '@shared/contract/checkpoints';
import { useApi } from '../../../app/api-context';

const GB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;
const size = (bytes: number) => (bytes >= GB ? `${(bytes / GB).toFixed(2)} GB` : bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

/** Checkpoints: whether they can be taken (git), how long they are kept, what is never captured, and the disk they use. */
export function CheckpointsSettingsSection() {
  const api = useApi();
  const [status, setStatus] = useState<CheckpointStatus | null>(null);
  const [settings, setSettings] = useState<CheckpointSettings | null>(null);
  const [excludes, setExcludes] = useState('');
  const [folders, setFolders] = useState<CheckpointFolder[]>([]);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);

  const load = useCallback(() => {
    void api.call('checkpoints.status', {}).then((r) => r.ok && setStatus(r.value));
    void api.call('checkpoints.getSettings', {}).then((r) => {
      if (!r.ok) return;
      setSettings(r.value);
      setExcludes(r.value.excludes.join('\n'));
    });
    void api.call('checkpoints.folders', {}).then((r) => r.ok && setFolders(r.value.folders));
  }, [api]);
  useEffect(load, [load]);

  const save = async (patch: Partial<CheckpointSettings>) => {
    const r = await api.call('checkpoints.setSettings', patch);
    if (r.ok) {
      setSettings(r.value);
      setExcludes(r.value.excludes.join('\n'));
      setMessage({ error: false, text: 'Saved.' });
    } else setMessage({ error: true, text: r.error.message });
  };

  return (
    <div className="settings-checkpoints" data-testid="settings-checkpoints">
      <p className="muted small">
        Before and after every turn, Switchboard snapshots the session’s folders (whoever changes the files), so each turn’s changes can be reviewed,
        reverted or rewound. Snapshots live in a separate git repository under Switchboard’s data folder; your own git state is never touched.
      </p>
      {status && !status.available && (
        <p className="error" role="alert" data-testid="checkpoints-unavailable">
          Checkpoints are off: {status.message}
        </p>
      )}
      {settings && (
        <div className="settings-grid">
          <label>
            Keep checkpoints for (days){' '}
            <input type="number" min={1} max={3650} defaultValue={settings.retentionDays} onBlur={(e) => void save({ retentionDays: Number(e.target.value) })} data-testid="checkpoints-retention-days" />
          </label>
          <label>
            At most per folder (GB){' '}
            <input
              type="number"
              min={0.01}
              step={0.1}
              defaultValue={settings.maxBytesPerFolder / GB}
              onBlur={(e) => void save({ maxBytesPerFolder: Math.round(Number(e.target.value) * GB) })}
              data-testid="checkpoints-max-gb"
            />
          </label>
          <label>
            Files larger than this are recorded as “too large to keep” (MB){' '}
            <input type="number" min={0.01} step={0.5} defaultValue={settings.maxFileBytes / MB} onBlur={(e) => void save({ maxFileBytes: Math.round(Number(e.target.value) * MB) })} data-testid="checkpoints-max-file-mb" />
          </label>
          <label>
            Never captured (gitignore patterns, one a line; each folder’s own .gitignore applies too)
            <textarea rows={6} value={excludes} onChange={(e) => setExcludes(e.target.value)} data-testid="checkpoints-excludes" />
          </label>
          <button onClick={() => void save({ excludes: excludes.split('\n').map((l) => l.trim()).filter(Boolean) })} data-testid="checkpoints-excludes-save">
            Save the exclude list
          </button>
        </div>
      )}
      {message && <p className={message.error ? 'error small' : 'muted small'}>{message.text}</p>}
      <h4>Folders with checkpoints</h4>
      {folders.length === 0 && <p className="muted small">None yet.</p>}
      <ul className="small" data-testid="checkpoint-folders">
        {folders.map((f) => (
          <li key={f.id}>
            <code>{f.path}</code>: {f.checkpoints} checkpoints, {size(f.bytes)}{' '}
            <button
              onClick={() => {
                if (!window.confirm(`Delete every checkpoint of ${f.path}? Its changes can no longer be reviewed or undone.`)) return;
                void api.call('checkpoints.deleteFolder', { folderId: f.id }).then(load);
              }}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      <button onClick={() => void api.call('checkpoints.prune', {}).then(load)}>Apply the limits now</button>
    </div>
  );
}
