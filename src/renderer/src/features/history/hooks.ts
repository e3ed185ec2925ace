import { useEffect, useMemo, useState } from 'react';
import type { ParamsOf, ResultOf } from '@shared/contract';
import { importSourceNames, unboundSource } from '@shared/contract/history-import';
import { useApi } from '../../app/api-context';
import { agentName, syncAgents, useAgents } from '../agents';
import { pollSoon, syncHistory, useHistory } from './state';

export type HistoryList = ResultOf<'history.list'>;

/** history.list with these params, fetched again whenever the history changes. */
export function useHistoryList(params: ParamsOf<'history.list'>): { data: HistoryList | null; error: string | null; loading: boolean } {
  const api = useApi();
  const version = useHistory((s) => s.version + s.activity);
  const key = JSON.stringify(params);
  const [state, setState] = useState<{ data: HistoryList | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  useEffect(() => {
    syncHistory(api);
    syncAgents(api);
  }, [api]);
  useEffect(() => {
    let stale = false;
    setState((s) => ({ ...s, loading: true }));
    void api.call('history.list', JSON.parse(key) as ParamsOf<'history.list'>).then((r) => {
      if (stale) return;
      setState(r.ok ? { data: r.value, error: null, loading: false } : (s) => ({ ...s, error: r.error.message, loading: false }));
    });
    return () => {
      stale = true;
    };
  }, [api, key, version]);
  // While old messages are still being indexed, look again in a moment.
  const indexing = state.data && !state.data.indexing.done;
  useEffect(() => {
    if (indexing) pollSoon();
  }, [indexing, state.data]);
  return state;
}

/** Agent display names by id (falls back to the id for agents that were removed). */
export function useAgentNames(): (agentId: string) => string {
  const agents = useAgents((s) => s.agents);
  return useMemo(() => {
    const cache = new Map<string, string>();
    return (id: string) => {
      let n = cache.get(id);
      if (n === undefined) {
        // A session imported from a tool no configured agent serves: the tool's name.
        const tool = unboundSource(id);
        cache.set(id, (n = tool ? `${importSourceNames[tool]} (not set up here)` : agentName(agents, id)));
      }
      return n;
    };
  }, [agents]);
}

/** Ids of this run's live sessions. */
export function useLiveSessions(): Record<string, unknown> {
  return useAgents((s) => s.sessions);
}

export type HeldAtAgent = ResultOf<'sessions.heldAtAgents'>['held'][string];

/**
 * What the running agents that offer session/status say of these sessions ("open at the agent" / "saved"), asked
 * again when the list or an agent's state changes; empty for agents that do not offer it or do not run.
 */
export function useHeldAtAgents(sessionIds: readonly string[]): Record<string, HeldAtAgent> {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  // Its own process or one per folder: any that runs and offers session/status.
  const offering = agents.flatMap((a) =>
    [a.status, ...(a.folderProcesses ?? [])].filter((p) => p.state === 'running' && (p.capabilities?.sessionCapabilities as { status?: unknown } | undefined)?.status != null),
  );
  const key = offering.length > 0 ? JSON.stringify([sessionIds.slice(0, 200), offering.map((p) => `${p.agentId}:${p.folder ?? ''}:${p.startedAt}`)]) : '';
  const [held, setHeld] = useState<Record<string, HeldAtAgent>>({});
  useEffect(() => {
    if (key === '') return setHeld({});
    let stale = false;
    const ids = (JSON.parse(key) as [string[]])[0];
    void api.call('sessions.heldAtAgents', { sessionIds: ids }).then((r) => {
      if (!stale && r.ok) setHeld(r.value.held);
    });
    return () => {
      stale = true;
    };
  }, [api, key]);
  return held;
}
