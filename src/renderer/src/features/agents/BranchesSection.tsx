import { useEffect, useMemo, useState } from 'react';
import type { WorktreeInfo } from '@shared/contract/worktrees';
import { useApi, useEvent } from '../../app/api-context';
import { openSessionTab } from './AgentsSection';
import { agentName, useAgents } from './state';
import { basename } from '../../ui/format';
import { VisibleText } from '../../ui/VisibleText';

/** Sidebar: live sessions grouped by repository and branch (those working in a worktree), the rest by folder. */
export function BranchesSection() {
  const api = useApi();
  const sessions = useAgents((s) => s.sessions);
  const agents = useAgents((s) => s.agents);
  const [places, setPlaces] = useState<Record<string, WorktreeInfo | null>>({});
  const [tick, setTick] = useState(0);
  const cwds = useMemo(() => [...new Set(Object.values(sessions).map((s) => s.cwd))].sort(), [sessions]);
  useEffect(() => {
    if (cwds.length === 0) return;
    let stale = false;
    void api.call('worktrees.describe', { paths: cwds }).then((r) => {
      if (!stale && r.ok) setPlaces(r.value.worktrees);
    });
    return () => {
      stale = true;
    };
  }, [api, cwds.join('\0'), tick]);
  useEvent('worktrees.changed', () => setTick((t) => t + 1), []);

  const groups = new Map<string, Map<string, typeof sessionsList>>();
  // Subagent sessions show under the session that started them (Agents, Overview), not as work of their own.
  const sessionsList = Object.values(sessions).filter((s) => !s.subagent);
  for (const s of sessionsList) {
    const w = places[s.cwd];
    const repo = w ? w.repo : s.cwd;
    const branch = w ? w.branch : '';
    const byBranch = groups.get(repo) ?? new Map<string, typeof sessionsList>();
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), s]);
    groups.set(repo, byBranch);
  }
  if (!Object.values(places).some(Boolean)) return <p className="muted small">Sessions in their own worktree show here by repository and branch.</p>;
  return (
    <ul className="branch-groups" data-testid="branch-groups">
      {[...groups.entries()].sort().map(([repo, byBranch]) => (
        <li key={repo} title={repo}>
          <strong><VisibleText text={basename(repo)} /></strong>
          <ul>
            {[...byBranch.entries()].sort().map(([branch, list]) => (
              <li key={branch} data-testid="branch-group" data-branch={branch}>
                <span className="muted small"><VisibleText text={branch || 'this folder'} /></span>
                {list.map((s) => (
                  <button key={s.id} className="link-button" onClick={() => openSessionTab(s, agentName(agents, s.agentId))} title={s.cwd}>
                    <VisibleText text={s.title ?? agentName(agents, s.agentId)} /> <span className="muted small">{s.status}</span>
                  </button>
                ))}
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}
