import { useCallback, useEffect, useState } from 'react';
import type { CheckpointFolder, CheckpointStatus } from '@shared/contract/checkpoints';
import { formatBytes } from '@shared/format-bytes';
import { useApi } from '../../../app/api-context';
import { SectionFields } from './GenericSection';
import { VisibleText } from '../../../ui/VisibleText';

/** Checkpoints: whether they can be taken (git), how long they are kept, what is never captured, and the disk they use. */
export function CheckpointsSettingsSection() {
  const api = useApi();
  const [status, setStatus] = useState<CheckpointStatus | null>(null);
  const [folders, setFolders] = useState<CheckpointFolder[]>([]);

  const load = useCallback(() => {
    void api.call('checkpoints.status', {}).then((r) => r.ok && setStatus(r.value));
    void api.call('checkpoints.folders', {}).then((r) => r.ok && setFolders(r.value.folders));
  }, [api]);
  useEffect(load, [load]);

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
      <SectionFields section="checkpoints" />
      <h4>Folders with checkpoints</h4>
      {folders.length === 0 && <p className="muted small">None yet.</p>}
      <ul className="small" data-testid="checkpoint-folders">
        {folders.map((f) => (
          <li key={f.id}>
            <code><VisibleText text={f.path} /></code>: {f.checkpoints} checkpoints, {formatBytes(f.bytes)}{' '}
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
