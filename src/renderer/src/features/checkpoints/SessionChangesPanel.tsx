import { useCallback, useEffect, useState } from 'react';
import type { ChangeSet, RestoreReport } from '@shared/contract/checkpoints';
import { useApi } from '../../app/api-context';
import { ChangesView, RestoreReportView } from './ChangesView';
import { openReview } from './open';

/** Everything a session changed in its folders so far (from its checkpoints), for the session's side panel. */
export function useSessionChanges(sessionId: string): { folders: Array<{ folderId: string; folder: string; changes: ChangeSet }>; refresh(): void } {
  const api = useApi();
  const [folders, setFolders] = useState<Array<{ folderId: string; folder: string; changes: ChangeSet }>>([]);
  const refresh = useCallback(() => {
    void api.call('checkpoints.sessionChanges', { sessionId }).then((r) => r.ok && setFolders(r.value.folders));
  }, [api, sessionId]);
  useEffect(() => {
    refresh();
    return api.on('checkpoints.changed', (p) => {
      if (p.sessionId === sessionId || p.sessionId === null) refresh();
    });
  }, [api, sessionId, refresh]);
  return { folders, refresh };
}

export function SessionChangesPanel({ sessionId, folders, onClose }: { sessionId: string; folders: Array<{ folderId: string; folder: string; changes: ChangeSet }>; onClose(): void }) {
  const api = useApi();
  const [report, setReport] = useState<RestoreReport | null>(null);
  const changed = folders.filter((f) => f.changes.files.length > 0);
  return (
    <div className="files-panel" data-testid="files-panel">
      <div className="files-head">
        <strong>Files changed in this session</strong>
        <span className="spacer" />
        <button onClick={() => openReview({ sessionId, turnId: null })}>Open in a tab</button>
        <button className="icon" aria-label="Close files" onClick={onClose}>
          ×
        </button>
      </div>
      {report && (
        <RestoreReportView
          report={report}
          onUndo={report.restoreId ? () => void api.call('checkpoints.undoRestore', { restoreId: report.restoreId! }).then((r) => r.ok && setReport(r.value)) : null}
        />
      )}
      {changed.length === 0 && <p className="muted">No file in the session’s folders has changed since it started.</p>}
      {changed.map((f) => (
        <section key={f.folderId}>
          {folders.length > 1 && <code className="small">{f.folder}</code>}
          <ChangesView changes={f.changes} canRestore onRestored={setReport} />
        </section>
      ))}
      <p className="muted small">Every change in the session’s folders, whoever made it: the agent’s own tools, shell commands, or you. Each turn’s changes are under the turn.</p>
    </div>
  );
}
