import { useEffect, useState } from 'react';
import type { ThreadEntry } from '@shared/acp-thread';
import type { Api } from '../../ipc/client';

/**
 * The last `count` thread entries of a session that is not live any more, as history stored them (a subagent
 * of a reopened or past session): null while asking or when `enabled` is false.
 */
export function useStoredThread(api: Api, sessionId: string, count: number, enabled: boolean): ThreadEntry[] | null {
  const [entries, setEntries] = useState<ThreadEntry[] | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let stale = false;
    void (async () => {
      const head = await api.call('history.entries', { sessionId, limit: 1 });
      if (stale || !head.ok) return;
      const offset = Math.max(0, head.value.total - count);
      const r = await api.call('history.entries', { sessionId, offset, limit: Math.min(500, count) });
      if (stale || !r.ok) return;
      setEntries(r.value.entries.flatMap((e) => (e.entry ? [e.entry] : [])));
    })();
    return () => {
      stale = true;
    };
  }, [api, sessionId, count, enabled]);
  return enabled ? entries : null;
}
