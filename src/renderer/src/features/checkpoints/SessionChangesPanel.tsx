import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChangeSet } from '@shared/contract/checkpoints';
import { useApi } from '../../app/api-context';
import { useLatestRead } from '../../ipc/latest';
import { ChangesView, RestoreReportView } from './ChangesView';
import { openReview } from './open';
import { undoRestore, useRestoreReports } from './state';
import { VisibleText } from '../../ui/VisibleText';

export interface SessionFolderChanges {
  folderId: string;
  folder: string;
  changes: ChangeSet;
  /** Files changed after the agent's last turn (a revert, a hand edit). */
  editedSince: string[];
}

export const EDITED_SINCE = "edited since the agent's turn";

/** Notes for the files edited after the agent's last turn. */
export const editedNotes = (f: Pick<SessionFolderChanges, 'editedSince'>): Record<string, string> => Object.fromEntries(f.editedSince.map((p) => [p, EDITED_SINCE]));

/**
 * Everything a session changed in its folders, up to the folder as it is now: read again when a turn or a
 * restore changes its checkpoints, when a file changes in one of its folders, and when the user comes back to
 * the window. Null (a hidden session tab): nothing is read until it is given again.
 */
export function useSessionChanges(sessionId: string | null): { folders: SessionFolderChanges[]; refresh(): void } {
  const api = useApi();
  const [folders, setFolders] = useState<SessionFolderChanges[]>([]);
  const folderIds = useRef<ReadonlySet<string>>(new Set());
  const begin = useLatestRead();
  const refresh = useCallback(() => {
    if (sessionId === null) return;
    const current = begin();
    void api.call('checkpoints.sessionChanges', { sessionId }).then((r) => {
      if (!r.ok || !current()) return;
      folderIds.current = new Set(r.value.folders.map((f) => f.folderId));
      setFolders(r.value.folders);
    });
  }, [api, sessionId, begin]);
  useEffect(() => {
    if (sessionId === null) return;
    refresh();
    const onBack = () => document.visibilityState === 'visible' && refresh();
    window.addEventListener('focus', onBack);
    document.addEventListener('visibilitychange', onBack);
    // Its own turns, a restore, or files changed in one of its folders (the core watches folders under review).
    const off = api.on('checkpoints.changed', (p) => {
      if (p.sessionId === sessionId || (p.sessionId === null && (folderIds.current.size === 0 || folderIds.current.has(p.folderId)))) refresh();
    });
    return () => {
      off();
      window.removeEventListener('focus', onBack);
      document.removeEventListener('visibilitychange', onBack);
    };
  }, [api, sessionId, refresh]);
  return { folders, refresh };
}

export function SessionChangesPanel({ sessionId, folders, onClose }: { sessionId: string; folders: SessionFolderChanges[]; onClose(): void }) {
  const api = useApi();
  const { report, undoable, again, show } = useRestoreReports();
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
      {report && <RestoreReportView report={report} earlier={undoable} onUndo={(id) => void undoRestore(api, id).then((r) => r.ok && show(r.value))} onOverwrite={again} />}
      {changed.length === 0 && <p className="muted">No file in the session’s folders has changed since it started.</p>}
      {changed.map((f) => (
        <section key={f.folderId}>
          {folders.length > 1 && <code className="small"><VisibleText text={f.folder} /></code>}
          <ChangesView changes={f.changes} canRestore onRestored={show} notes={editedNotes(f)} />
        </section>
      ))}
      <p className="muted small">Every change in the session’s folders up to now, whoever made it: the agent’s own tools, shell commands, or you. Each turn’s changes are under the turn.</p>
    </div>
  );
}
