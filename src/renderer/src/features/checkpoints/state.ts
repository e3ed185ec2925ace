import { useCallback, useEffect, useState } from 'react';
import { create } from 'zustand';
import type { Result } from '@shared/contract';
import type { ChangeSet, RestoreReport, TurnCheckpoint } from '@shared/contract/checkpoints';
import type { Api } from '../../ipc/client';

/** A session's turn checkpoints (newest last), kept in step with `checkpoints.changed`. */
export function useTurnCheckpoints(api: Api, sessionId: string | null): TurnCheckpoint[] {
  const [turns, setTurns] = useState<TurnCheckpoint[]>([]);
  const refresh = useCallback(() => {
    if (!sessionId) return;
    void api.call('checkpoints.listTurns', { sessionId }).then((r) => {
      if (r.ok) setTurns(r.value.turns);
    });
  }, [api, sessionId]);
  useEffect(() => {
    if (!sessionId) return;
    refresh();
    return api.on('checkpoints.changed', (p) => {
      if (p.sessionId === sessionId || p.sessionId === null) refresh();
    });
  }, [api, sessionId, refresh]);
  return turns;
}

/** The turn checkpoints of each prompt (a turn has one per folder of the session). */
export function byPrompt(turns: readonly TurnCheckpoint[]): Map<string, TurnCheckpoint[]> {
  const out = new Map<string, TurnCheckpoint[]>();
  for (const t of turns) {
    const list = out.get(t.promptId);
    if (list) list.push(t);
    else out.set(t.promptId, [t]);
  }
  return out;
}

/** One change set's counts in words: "2 added, 1 modified · +12 −4". */
export function describeChanges(changes: ChangeSet | null | undefined): string {
  if (!changes) return '';
  const s = changes.summary;
  const parts = [
    s.added ? `${s.added} added` : '',
    s.modified ? `${s.modified} modified` : '',
    s.deleted ? `${s.deleted} deleted` : '',
    s.renamed ? `${s.renamed} renamed` : '',
  ].filter(Boolean);
  if (parts.length === 0) return 'no file changed';
  return `${parts.join(', ')} · +${s.additions} −${s.deletions}`;
}


/** Restores undone in this window: a hunk or file they reverted is offered again. */
export const useUndoneRestores = create<{ ids: ReadonlySet<string> }>(() => ({ ids: new Set() }));

/** Undoes a restore; its report (what the undo did), or the error in words. */
export async function undoRestore(api: Api, restoreId: string): Promise<Result<RestoreReport>> {
  const r = await api.call('checkpoints.undoRestore', { restoreId });
  if (r.ok) useUndoneRestores.setState((s) => ({ ids: new Set([...s.ids, restoreId]) }));
  return r;
}

/** Runs the same restore again, putting back these paths although they changed since (the user's choice). */
export type RestoreAgain = (overwrite: string[]) => void;

/**
 * The last restore's report, and the last one that can be undone: a later restore that did nothing ("Nothing
 * to do") is said without hiding the Undo of the one before. `again`: the last restore, to run again with paths
 * the user chose to put back anyway.
 */
export function useRestoreReports(): {
  report: RestoreReport | null;
  undoable: RestoreReport | null;
  again: RestoreAgain | null;
  show(report: RestoreReport | null, again?: RestoreAgain): void;
} {
  const [state, setState] = useState<{ report: RestoreReport | null; undoable: RestoreReport | null; again: RestoreAgain | null }>({ report: null, undoable: null, again: null });
  const undone = useUndoneRestores((s) => s.ids);
  const show = useCallback((report: RestoreReport | null, again?: RestoreAgain) => {
    setState((s) => ({ report, undoable: report?.restoreId ? report : report === null ? null : s.undoable, again: again ?? null }));
  }, []);
  const undoable = state.undoable?.restoreId && !undone.has(state.undoable.restoreId) ? state.undoable : null;
  return { report: state.report, undoable: undoable && undoable !== state.report ? undoable : null, again: state.again, show };
}
