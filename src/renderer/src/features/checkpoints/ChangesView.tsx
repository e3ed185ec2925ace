import { useEffect, useState } from 'react';
import type { ChangeSet, ChangedFile, FileDiff, RestoreReport } from '@shared/contract/checkpoints';
import { useApi } from '../../app/api-context';
import { MonacoDiff } from '../editor';
import { VisibleText, visibleText } from '../../ui/VisibleText';
import { formatBytes } from '@shared/format-bytes';
import { describeChanges, useUndoneRestores, type RestoreAgain } from './state';

/** A file's recorded size; null where there is no such side (an added file's old size). */
const sizeText = (n: number | null): string => (n === null ? '—' : formatBytes(n));

const STATUS_LABEL: Record<ChangedFile['status'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', renamed: 'renamed' };

/** What a restore did: files written, merged or removed, and each file it refused, with the reason. */
export function RestoreReportView({
  report,
  onUndo,
  earlier = null,
  onOverwrite = null,
}: {
  report: RestoreReport;
  onUndo: ((restoreId: string) => void) | null;
  /** The last restore that can still be undone, when this one cannot: its Undo stays offered. */
  earlier?: RestoreReport | null;
  /** Runs the restore again for a file changed since, losing what it holds now (offered where the report gives the choice). */
  onOverwrite?: RestoreAgain | null;
}) {
  return (
    <div className="restore-report" role="status" data-testid="restore-report" data-restore-id={report.restoreId ?? ''}>
      {report.applied.length === 0 && report.refused.length === 0 && <p className="muted">Nothing to do: the files are already like that.</p>}
      {earlier?.restoreId && onUndo && (
        <p className="muted">
          Before that: {earlier.applied.length === 1 ? '1 file' : `${earlier.applied.length} files`} restored ({earlier.applied.map((a) => a.path).join(', ')}).{' '}
          <button onClick={() => onUndo(earlier.restoreId!)} data-testid="undo-restore">
            Undo
          </button>
        </p>
      )}
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
              <button onClick={() => onUndo(report.restoreId!)} data-testid="undo-restore">
                Undo
              </button>
            </>
          )}
        </p>
      )}
      {report.refused.length > 0 && (
        <ul className="restore-refused" data-testid="restore-refused">
          {report.refused.map((r) => (
            <li key={r.path} data-path={r.path}>
              <code>
                <VisibleText text={r.path} />
              </code>
              : {visibleText(r.reason)}
              {r.choice && onOverwrite && <LostLines path={r.path} choice={r.choice} onOverwrite={onOverwrite} />}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The lines a file changed since would lose if put back anyway, and the choice to do it. */
function LostLines({ path, choice, onOverwrite }: { path: string; choice: NonNullable<RestoreReport['refused'][number]['choice']>; onOverwrite: RestoreAgain }) {
  return (
    <div className="restore-choice" data-testid="restore-choice">
      {choice.lines.length > 0 && (
        <>
          <span className="small">Putting it back would lose these lines:</span>
          <pre className="restore-lost" data-testid="restore-lost">
            {choice.lines.map((l) => visibleText(l)).join('\n')}
            {choice.more > 0 && `\n… and ${choice.more} more`}
          </pre>
        </>
      )}
      <button onClick={() => onOverwrite([path])} data-testid="restore-overwrite">
        {choice.lines.length > 0 ? 'Put it back anyway (lose these lines)' : 'Put it back anyway'}
      </button>{' '}
      <span className="muted small">Kept as it is unless you choose; a restore can be undone.</span>
    </div>
  );
}

function FileRow({ file, selected, note, onSelect }: { file: ChangedFile; selected: boolean; note: string | undefined; onSelect(): void }) {
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
          ? `ignored, content not kept (${sizeText(file.oldSize)} → ${sizeText(file.newSize)})`
          : file.tooLarge
            ? `too large to keep (${sizeText(file.oldSize)} → ${sizeText(file.newSize)})`
            : file.binary
              ? `binary, ${sizeText(file.oldSize)} → ${sizeText(file.newSize)}`
              : `+${file.additions} −${file.deletions}`}
      </span>
      {note && (
        <span className="tag edited-since" data-testid="edited-since">
          {note}
        </span>
      )}
    </li>
  );
}

interface ChangesViewProps {
  changes: ChangeSet;
  /** Restores are offered (a live folder); off for read-only views. */
  canRestore: boolean;
  /** `again`: the same restore, run again for paths the user chose to put back anyway. */
  onRestored(report: RestoreReport, again: RestoreAgain): void;
  /** A word about some files (path → note), such as "edited since the agent's turn". */
  notes?: Readonly<Record<string, string>>;
}

/** A diff as tall as its longer side (a three-line file gets no screenful of blank), at most 360 px. */
const diffHeight = (d: FileDiff): number => {
  const lines = Math.max((d.oldText ?? '').split('\n').length, (d.newText ?? '').split('\n').length);
  return Math.max(80, Math.min(360, lines * 19 + 24));
};

/** What was reverted in this view: `path` (the file), `path#hunk`, or `*` (all), each with its restore. */
type Reverted = Readonly<Record<string, string>>;

/** A change set: its files, each one's Monaco diff, and reverting a hunk, a file or everything. */
export function ChangesView({ changes, canRestore, onRestored, notes }: ChangesViewProps) {
  const api = useApi();
  // A reverted hunk or file of a change set that stays (a past turn's) is not offered again until undone.
  const [revertedAll, setReverted] = useState<{ of: string; keys: Reverted }>({ of: '', keys: {} });
  const undone = useUndoneRestores((u) => u.ids);
  const pair = `${changes.from}:${changes.to}`;
  const reverted = (key: string): boolean => {
    if (revertedAll.of !== pair) return false;
    const id = revertedAll.keys[key] ?? revertedAll.keys[key.split('#')[0]!] ?? revertedAll.keys['*'];
    return id !== undefined && !undone.has(id);
  };
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

  const revert = async (scope: { kind: 'all' } | { kind: 'file'; path: string } | { kind: 'hunk'; path: string; hunk: number }, overwrite?: string[]) => {
    setBusy(true);
    setError(null);
    const r = await api.call('checkpoints.revert', { from: changes.from, to: changes.to, scope, ...(overwrite ? { overwrite } : {}) });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    const restoreId = r.value.restoreId;
    const done = new Set(r.value.applied.map((a) => a.path));
    const key = scope.kind === 'all' ? '*' : scope.kind === 'file' ? scope.path : `${scope.path}#${scope.hunk}`;
    if (restoreId && (scope.kind === 'all' ? done.size > 0 : done.has(scope.path))) {
      setReverted((prev) => ({ of: pair, keys: { ...(prev.of === pair ? prev.keys : {}), [key]: restoreId } }));
    }
    onRestored(r.value, (paths) => void revert(scope, paths));
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
          <FileRow key={f.path} file={f} selected={selected === f.path} note={reverted(f.path) ? 'reverted' : notes?.[f.path]} onSelect={() => setSelected(selected === f.path ? null : f.path)} />
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
            {canRestore && !diff.file.tooLarge && !reverted(diff.file.path) && (
              <button onClick={() => void revert({ kind: 'file', path: diff.file.path })} disabled={busy} data-testid="revert-file">
                Revert file
              </button>
            )}
          </div>
          {diff.file.binary || diff.file.tooLarge || diff.file.ignored ? (
            <p className="muted">
              {diff.file.ignored ? 'Ignored (or inside .git): only its size was recorded' : diff.file.tooLarge ? 'Too large to keep: only its size was recorded' : 'Binary file'} ({sizeText(diff.file.oldSize)} →{' '}
              {sizeText(diff.file.newSize)}).
            </p>
          ) : (
            <>
              {canRestore && diff.hunks.length > 1 && (
                <ol className="change-hunks" data-testid="change-hunks">
                  {diff.hunks.map((h) => (
                    <li key={h.index}>
                      Lines {h.newLines > 0 ? `${h.newStart}–${h.newStart + h.newLines - 1}` : `after ${h.newStart}`} (−{h.oldLines} +{h.newLines}){' '}
                      {reverted(`${diff.file.path}#${h.index}`) ? (
                        <span className="tag" data-testid="hunk-reverted">
                          reverted
                        </span>
                      ) : (
                        <button onClick={() => void revert({ kind: 'hunk', path: diff.file.path, hunk: h.index })} disabled={busy} data-testid="revert-hunk">
                          Revert this hunk
                        </button>
                      )}
                    </li>
                  ))}
                </ol>
              )}
              <MonacoDiff path={diff.file.path} oldText={diff.file.status === 'added' ? null : (diff.oldText ?? '')} newText={diff.newText ?? ''} height={diffHeight(diff)} />
            </>
          )}
        </div>
      )}
    </div>
  );
}
