import { useCallback, useEffect, useState } from 'react';
import type { ChangeSet, CheckpointFolder, Restore, RestoreReport, TurnCheckpoint } from '@shared/contract/checkpoints';
import { useApi } from '../../app/api-context';
import { useLatestRead } from '../../ipc/latest';
import type { TabViewProps } from '../../app/contributions';
import { confirmDialog } from '../../ui/confirm';
import { ChangesView, RestoreReportView } from './ChangesView';
import { ChildChanges } from './ChildChanges';
import { turnReviewTitle } from './open';
import { editedNotes } from './SessionChangesPanel';
import { formatBytes } from '@shared/format-bytes';
import { undoRestore, useRestoreReports, type RestoreAgain } from './state';
import { VisibleText } from '../../ui/VisibleText';

interface FolderChanges {
  folderId: string;
  folder: string;
  /** Gone from disk (a past session's folder): reviewed, not restored. */
  folderMissing: boolean;
  changes: ChangeSet;
  /** The turn checkpoint (per-turn review): rewinding goes back to before it. */
  turn: TurnCheckpoint | null;
  /** Session-wide review: files changed after the agent's last turn. */
  editedSince: string[];
}

export function reviewProps(props: Record<string, unknown>): { sessionId: string; turnId: string | null; startedAt?: number } | null {
  if (typeof props.sessionId !== 'string') return null;
  return { sessionId: props.sessionId, turnId: typeof props.turnId === 'string' ? props.turnId : null, ...(typeof props.startedAt === 'number' ? { startedAt: props.startedAt } : {}) };
}

/** Review of what a turn (or a whole session) changed in its folders, with revert, rewind and undo. */
export function ReviewTab({ tab }: TabViewProps) {
  const api = useApi();
  const p = reviewProps(tab.props);
  const [folders, setFolders] = useState<FolderChanges[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { report, undoable, again, show: setReport } = useRestoreReports();
  const [usage, setUsage] = useState<CheckpointFolder[]>([]);
  const [restores, setRestores] = useState<Record<string, Restore[]>>({});
  const [busy, setBusy] = useState(false);

  const begin = useLatestRead();
  const load = useCallback(async () => {
    if (!p) return;
    const current = begin();
    if (p.turnId) {
      const r = await api.call('checkpoints.listTurns', { sessionId: p.sessionId });
      if (!current()) return;
      if (!r.ok) return setError(r.error.message);
      const turns = r.value.turns.filter((t) => t.promptId === p.turnId);
      setFolders(turns.filter((t) => t.changes).map((t) => ({ folderId: t.folderId, folder: t.folder, folderMissing: t.folderMissing, changes: t.changes!, turn: t, editedSince: [] })));
      if (turns.length === 0) setError('No checkpoint was recorded for this turn.');
    } else {
      const r = await api.call('checkpoints.sessionChanges', { sessionId: p.sessionId });
      if (!current()) return;
      if (!r.ok) return setError(r.error.message);
      setFolders(r.value.folders.map((f) => ({ ...f, turn: null })));
    }
    const u = await api.call('checkpoints.folders', {});
    if (u.ok && current()) setUsage(u.value.folders);
  }, [api, begin, p?.sessionId, p?.turnId]);

  const loadRestores = useCallback(
    async (folderIds: string[]) => {
      const out: Record<string, Restore[]> = {};
      for (const folderId of folderIds) {
        const r = await api.call('checkpoints.listRestores', { folderId });
        if (r.ok) out[folderId] = r.value.restores;
      }
      setRestores(out);
    },
    [api],
  );

  useEffect(() => {
    void load();
    // The session-wide review shows the folder now: read again when the user comes back to the window.
    const onBack = () => document.visibilityState === 'visible' && p?.turnId === null && void load();
    window.addEventListener('focus', onBack);
    const off = api.on('checkpoints.changed', () => void load());
    return () => {
      off();
      window.removeEventListener('focus', onBack);
    };
  }, [api, load, p?.turnId]);
  useEffect(() => {
    if (folders) void loadRestores(folders.map((f) => f.folderId));
  }, [folders, loadRestores]);

  const restored = (r: RestoreReport, retry?: RestoreAgain) => {
    setReport(r, retry);
    void load();
  };
  const act = async (call: () => Promise<{ ok: true; value: RestoreReport } | { ok: false; error: { message: string } }>, retry?: RestoreAgain) => {
    setBusy(true);
    setError(null);
    const r = await call();
    setBusy(false);
    if (r.ok) restored(r.value, retry);
    else setError(r.error.message);
  };
  const rewind = (turnId: string, overwrite?: string[]): Promise<void> =>
    act(
      () => api.call('checkpoints.rewind', { turnId, ...(overwrite ? { overwrite } : {}) }),
      (paths) => void rewind(turnId, paths),
    );

  if (!p) return <div className="review-tab">This tab has nothing to show.</div>;
  return (
    <div className="review-tab" data-testid="review-tab">
      <h2>{p.turnId ? (typeof tab.props.startedAt === 'number' ? turnReviewTitle(tab.props.startedAt) : 'Changes of this turn') : 'Everything this session changed, up to now'}</h2>
      {error && (
        <p className="error" role="alert" data-testid="review-error">
          {error}
        </p>
      )}
      {report && <RestoreReportView report={report} earlier={undoable} onUndo={(id) => void act(() => undoRestore(api, id))} onOverwrite={again} />}
      {folders === null && !error && <p className="muted">Loading…</p>}
      {folders?.length === 0 && !error && <p className="muted">No checkpoint yet.</p>}
      {folders?.map((f) => {
        const use = usage.find((u) => u.id === f.folderId);
        const done = (restores[f.folderId] ?? []).filter((r) => !r.undoneBy && r.kind !== 'undo');
        return (
          <section key={f.folderId} className="review-folder" data-testid="review-folder">
            <div className="review-folder-head">
              <code><VisibleText text={f.folder} /></code>
              <span className="spacer" />
              {f.turn && !f.folderMissing && (
                <button
                  onClick={() => void rewind(f.turn!.id)}
                  disabled={busy}
                  title="Put every file of this folder back as it was before this turn (a rewind can be undone)"
                  data-testid="rewind-turn"
                >
                  Rewind folder to before this turn
                </button>
              )}
            </div>
            {f.folderMissing && (
              <p className="muted small" data-testid="review-read-only">
                This folder no longer exists: its changes can be reviewed here, but not reverted or rewound.
              </p>
            )}
            {f.turn && <ChildChanges sessionId={p.sessionId} turn={f.turn} busy={busy} onReverted={restored} />}
            <ChangesView changes={f.changes} canRestore={!f.folderMissing} onRestored={restored} notes={editedNotes(f)} />
            {done.length > 0 && (
              <details className="review-restores">
                <summary>Restores in this folder ({done.length})</summary>
                <ul>
                  {done.map((r) => (
                    <li key={r.id}>
                      {r.label} · {new Date(r.createdAt).toLocaleString()}{' '}
                      <button onClick={() => void act(() => undoRestore(api, r.id))} disabled={busy}>
                        Undo
                      </button>
                    </li>
                  ))}
                </ul>
              </details>
            )}
            {use && (
              <p className="muted small" data-testid="checkpoint-usage">
                Checkpoints of this folder: {use.checkpoints}, {formatBytes(use.bytes)} on disk.{' '}
                <button
                  className="link"
                  onClick={() => {
                    void confirmDialog({
                      title: 'Delete these checkpoints?',
                      message: `Every checkpoint of ${f.folder} is deleted: its changes can no longer be reviewed or undone.`,
                      confirm: 'Delete',
                      danger: true,
                    }).then((go) => {
                      if (go) void api.call('checkpoints.deleteFolder', { folderId: f.folderId }).then(() => load());
                    });
                  }}
                >
                  Delete checkpoints of this folder
                </button>
              </p>
            )}
          </section>
        );
      })}
    </div>
  );
}
