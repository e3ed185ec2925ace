import { useCallback, useEffect, useState } from 'react';
import type { ChangeSet, TurnCheckpoint } from '@shared/contract/checkpoints';
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

export function formatBytes(n: number | null): string {
  if (n === null) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
