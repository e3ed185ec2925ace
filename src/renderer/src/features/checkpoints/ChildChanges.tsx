import { useEffect, useState } from 'react';
import type { ChildChanges as ChildChangesValue, RestoreReport, TurnCheckpoint } from '@shared/contract/checkpoints';
import { useApi } from '../../app/api-context';
import { VisibleText } from '../../ui/VisibleText';

/**
 * A turn's changes by the subagent session whose tool calls made them; a file two children wrote in the turn
 * says so. "Revert this subagent's changes" reverts its files, and its own hunks of a shared file.
 */
export function ChildChanges({ sessionId, turn, busy, onReverted }: { sessionId: string; turn: TurnCheckpoint; busy: boolean; onReverted(r: RestoreReport): void }) {
  const api = useApi();
  const [value, setValue] = useState<ChildChangesValue | null>(null);
  const [working, setWorking] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    void api.call('checkpoints.childChanges', { sessionId, turnId: turn.id }).then((r) => {
      if (!stale) setValue(r.ok ? r.value : null);
    });
    return () => {
      stale = true;
    };
  }, [api, sessionId, turn.id, turn.changes?.to]);
  if (!value || value.children.length === 0) return null;
  const revert = async (childId: string) => {
    setWorking(childId);
    setError(null);
    const r = await api.call('checkpoints.revertChild', { sessionId, turnId: turn.id, childId });
    setWorking(null);
    if (!r.ok) return setError(r.error.message);
    // One restore per file or hunk: each can be undone from the folder's restores.
    onReverted({ restoreId: null, applied: r.value.reports.flatMap((x) => x.applied), refused: [...r.value.reports.flatMap((x) => x.refused), ...r.value.refused] });
  };
  return (
    <div className="child-changes" data-testid="child-changes">
      <h3 className="small">By subagent</h3>
      {error && <p className="error small" role="alert">{error}</p>}
      <ul>
        {value.children.map((c) => (
          <li key={c.childId} data-testid="child-changes-child" data-child-id={c.childId} data-title={c.title}>
            <strong><VisibleText text={c.title} /></strong>{' '}
            {turn.folderMissing ? null : (
              <button className="small" disabled={busy || working !== null} onClick={() => void revert(c.childId)} data-testid="child-changes-revert">
                {working === c.childId ? 'Reverting…' : 'Revert this subagent’s changes'}
              </button>
            )}
            <ul className="small">
              {c.files.map((f) => (
                <li key={f.path} data-testid="child-changes-file" data-path={f.path}>
                  <code><VisibleText text={f.path} /></code>
                  {f.sharedWith.length > 0 && (
                    <span className="warning" data-testid="child-changes-shared">
                      {' '}
                      also written by <VisibleText text={f.sharedWith.map((o) => o.title).join(', ')} /> in this turn
                    </span>
                  )}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </div>
  );
}
