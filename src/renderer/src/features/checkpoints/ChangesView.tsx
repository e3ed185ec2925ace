import { useEffect, useState } from 'react';
import type { ChangeSet, ChangedFile, FileDiff, RestoreReport } from '@shared/contract/checkpoints';
import { useApi } from '../../app/api-context';
import { MonacoDiff } from '../editor';
import { VisibleText, visibleText } from '../../ui/VisibleText';
import { describeChanges, formatBytes } from './state';

const STATUS_LABEL: Record<ChangedFile['status'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', renamed: 'renamed' };

/** What a restore did: files written, merged or removed, and each file it refused, with the reason. */
export function RestoreReportView({ report, onUndo }: { report: RestoreReport; onUndo: (() => void) | null }) {
  return (
    <div className="restore-report" role="status" data-testid="restore-report" data-restore-id={report.restoreId ?? ''}>
      {report.applied.length === 0 && report.refused.length === 0 && <p className="muted">Nothing to do: the files are already like that.</p>}
      {report.applied.length > 0 && (
        <p>
          {report.applied.length === 1 ? '1 file' : `${report.applied.length} files`} restored:{' '}
          {report.applied.map((a, i) => (
            <span key={a.path}>
              {i > 0 && ', '}
              <VisibleText text={a.path} /> ({a.action})
            </span>
          ))}
          .
          {report.restoreId && onUndo && (
            <>
              {' '}
              <button onClick={onUndo} data-testid="undo-restore">
                Undo
              </button>
            </>
          )}
        </p>
      )}
      {report.refused.length > 0 && (
        <ul className="restore-refused" data-testid="restore-refused">
          {report.refused.map((r) => (
            <li key={r.path}>
              <code>
                <VisibleText text={r.path} />
              </code>
              : {visibleText(r.reason)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function FileRow({ file, selected, onSelect }: { file: ChangedFile; selected: boolean; onSelect(): void }) {
  return (
    <li
      className={`change-file status-${file.status}${selected ? ' selected' : ''}${file.flag ? ' flagged' : ''}`}
      data-testid="change-file"
      data-path={file.path}
      data-status={file.status}
      data-ignored={file.ignored ? 'true' : undefined}
      data-flagged={file.flag ? 'true' : undefined}
    >
      <button className="change-file-name" onClick={onSelect} aria-expanded={selected} title={visibleText(file.oldPath ? `${file.oldPath} → ${file.path}` : file.path)}>
        <span className={`tag ${file.status}`}>{STATUS_LABEL[file.status]}</span>{' '}
        {file.oldPath && (
          <>
            <VisibleText text={file.oldPath} /> →{' '}
          </>
        )}
        <VisibleText text={file.path} className="change-file-path" />
        {file.kind === 'symlink' && <span className="tag">link</span>}
        {file.ignored && (
          <span className="tag ignored" title="Ignored (or inside .git): listed with its size, its content was not kept" data-testid="change-ignored">
            ignored
          </span>
        )}
        {file.flag && (
          <span className="tag flag" title={file.flag} data-testid="change-flag">
            ⚠ runs code
          </span>
        )}
      </button>
      {file.flag && <span className="change-flag-reason small">{file.flag}</span>}
      <span className="muted small">
        {file.ignored
          ? `ignored, content not kept (${formatBytes(file.oldSize)} → ${formatBytes(file.newSize)})`
          : file.tooLarge
            ? `too large to keep (${formatBytes(file.oldSize)} → ${formatBytes(file.newSize)})`
            : file.binary
              ? `binary, ${formatBytes(file.oldSize)} → ${formatBytes(file.newSize)}`
              : `+${file.additions} −${file.deletions}`}
      </span>
    </li>
  );
}

interface ChangesViewProps {
  changes: ChangeSet;
  /** Restores are offered (a live folder); off for read-only views. */
  canRestore: boolean;
  onRestored(report: RestoreReport): void;
}

/** A change set: its files, each one's Monaco diff, and reverting a hunk, a file or everything. */
export function ChangesView({ changes, canRestore, onRestored }: ChangesViewProps) {
  const api = useApi();
  const [selected, setSelected] = useState<string | null>(changes.files[0]?.path ?? null);
  const [diff, setDiff] = useState<FileDiff | { path: string; error: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!selected) return;
    let stale = false;
    setDiff(null);
    void api.call('checkpoints.fileDiff', { from: changes.from, to: changes.to, path: selected }).then((r) => {
      if (!stale) setDiff(r.ok ? r.value : { path: selected, error: r.error.message });
    });
    return () => {
      stale = true;
    };
  }, [api, changes.from, changes.to, selected]);

  const revert = async (scope: { kind: 'all' } | { kind: 'file'; path: string } | { kind: 'hunk'; path: string; hunk: number }) => {
    setBusy(true);
    setError(null);
    const r = await api.call('checkpoints.revert', { from: changes.from, to: changes.to, scope });
    setBusy(false);
    if (r.ok) onRestored(r.value);
    else setError(r.error.message);
  };

  return (
    <div className="changes-view" data-testid="changes-view">
      <div className="changes-head">
        <span>{describeChanges(changes)}</span>
        {changes.truncated && <span className="muted small"> (more files changed than are listed)</span>}
        <span className="spacer" />
        {canRestore && changes.files.length > 0 && (
          <button onClick={() => void revert({ kind: 'all' })} disabled={busy} data-testid="revert-all">
            Revert all
          </button>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ul className="change-files">
        {changes.files.map((f) => (
          <FileRow key={f.path} file={f} selected={selected === f.path} onSelect={() => setSelected(selected === f.path ? null : f.path)} />
        ))}
      </ul>
      {selected && diff && 'error' in diff && <p className="error">{diff.error}</p>}
      {selected && diff && !('error' in diff) && diff.file.path === selected && (
        <div className="change-diff" data-testid="change-diff">
          <div className="change-diff-head">
            <code>
              <VisibleText text={diff.file.path} />
            </code>
            <span className="spacer" />
            {canRestore && !diff.file.tooLarge && (
              <button onClick={() => void revert({ kind: 'file', path: diff.file.path })} disabled={busy} data-testid="revert-file">
                Revert file
              </button>
            )}
          </div>
          {diff.file.binary || diff.file.tooLarge || diff.file.ignored ? (
            <p className="muted">
              {diff.file.ignored ? 'Ignored (or inside .git): only its size was recorded' : diff.file.tooLarge ? 'Too large to keep: only its size was recorded' : 'Binary file'} ({formatBytes(diff.file.oldSize)} →{' '}
              {formatBytes(diff.file.newSize)}).
            </p>
          ) : (
            <>
              {canRestore && diff.hunks.length > 1 && (
                <ol className="change-hunks" data-testid="change-hunks">
                  {diff.hunks.map((h) => (
                    <li key={h.index}>
                      Lines {h.newLines > 0 ? `${h.newStart}–${h.newStart + h.newLines - 1}` : `after ${h.newStart}`} (−{h.oldLines} +{h.newLines}){' '}
                      <button onClick={() => void revert({ kind: 'hunk', path: diff.file.path, hunk: h.index })} disabled={busy} data-testid="revert-hunk">
                        Revert this hunk
                      </button>
                    </li>
                  ))}
                </ol>
              )}
              <MonacoDiff path={diff.file.path} oldText={diff.file.status === 'added' ? null : (diff.oldText ?? '')} newText={diff.newText ?? ''} height={360} />
            </>
          )}
        </div>
      )}
    </div>
  );
}
