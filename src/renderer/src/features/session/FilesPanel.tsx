import { useEffect, useState } from 'react';
import type { FileWriteInfo } from '@shared/contract/sessions';
import { useApi } from '../../app/api-context';
import { DiffBlock } from './ToolCall';
import { relativeTo } from './format';

function formatSize(n: number | null): string {
  if (n === null) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Files the agent wrote in this session: each change viewable as a diff, and revertible. */
export function FilesPanel({ sessionId, cwd, writes, onChanged, onClose }: { sessionId: string; cwd: string | null; writes: readonly FileWriteInfo[]; onChanged(): void; onClose(): void }) {
  const api = useApi();
  const [selected, setSelected] = useState<number | null>(null);
  const [content, setContent] = useState<{ id: number; path: string; previous: string | null; next: string } | { id: number; error: string } | null>(null);
  const [revert, setRevert] = useState<{ id: number; state: 'working' | 'conflict' | 'error'; message?: string } | null>(null);

  useEffect(() => {
    if (selected === null) return;
    let stale = false;
    void api.call('sessions.fileWriteContent', { writeId: selected }).then((r) => {
      if (stale) return;
      setContent(r.ok ? { id: selected, path: r.value.path, previous: r.value.previousContent, next: r.value.newContent } : { id: selected, error: r.error.message });
    });
    return () => {
      stale = true;
    };
  }, [api, selected]);

  const doRevert = async (w: FileWriteInfo, force: boolean) => {
    setRevert({ id: w.id, state: 'working' });
    const r = await api.call('sessions.revertWrite', { writeId: w.id, force });
    if (r.ok) {
      setRevert(null);
      onChanged();
    } else if (r.error.code === 'conflict' && !force && !w.revertedAt) {
      setRevert({ id: w.id, state: 'conflict', message: r.error.message });
    } else {
      setRevert({ id: w.id, state: 'error', message: r.error.message });
    }
  };

  const ordered = [...writes].sort((a, b) => b.ts - a.ts);
  return (
    <div className="files-panel" data-testid="files-panel">
      <div className="files-head">
        <strong>Files written in this session</strong>
        <button className="icon" aria-label="Close files" onClick={onClose}>
          ×
        </button>
      </div>
      {ordered.length === 0 && <p className="muted">The agent has not written any file through Switchboard yet.</p>}
      <ul className="files-list">
        {ordered.map((w) => (
          <li key={w.id} className={`file-write${selected === w.id ? ' selected' : ''}${w.revertedAt ? ' reverted' : ''}`} data-testid="file-write">
            <button className="file-write-name" onClick={() => setSelected(selected === w.id ? null : w.id)} title={w.path}>
              {w.created ? <span className="tag new">new</span> : null} {relativeTo(w.path, cwd)}
            </button>
            <span className="muted small">
              {formatSize(w.previousSize)} → {formatSize(w.newSize)} · {new Date(w.ts).toLocaleTimeString()}
            </span>
            {w.revertedAt ? (
              <span className="tag">reverted</span>
            ) : (
              <button onClick={() => void doRevert(w, false)} disabled={revert?.id === w.id && revert.state === 'working'} data-testid="revert-write">
                Revert
              </button>
            )}
            {revert?.id === w.id && revert.state === 'conflict' && (
              <div className="revert-conflict" role="alert">
                {revert.message} <button onClick={() => void doRevert(w, true)}>Revert anyway</button> <button onClick={() => setRevert(null)}>Keep</button>
              </div>
            )}
            {revert?.id === w.id && revert.state === 'error' && <div className="error small">{revert.message}</div>}
            {selected === w.id && content?.id === w.id && (
              <div className="file-write-diff">
                {'error' in content ? <div className="error">{content.error}</div> : <DiffBlock path={content.path} oldText={content.previous} newText={content.next} cwd={cwd} />}
              </div>
            )}
          </li>
        ))}
      </ul>
      <p className="muted small">
        Session: <code>{sessionId.slice(0, 8)}</code>. Revert puts a file back as it was before the agent’s write (a created file is deleted).
      </p>
    </div>
  );
}
