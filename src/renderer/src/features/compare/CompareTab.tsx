import type { ChangeSet } from '@shared/contract/checkpoints';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Compare, CompareRun } from '@shared/contract/compare';
import type { AgentSummary } from '@shared/contract/agents';
import type { MergeStrategy, WorktreeError } from '@shared/contract/worktrees';
import { useApi, useEvent } from '../../app/api-context';
import { AppInfoContext } from '../../app/App';
import { useNotices } from '../../app/notices';
import type { TabViewProps } from '../../app/contributions';
import { MAX_PANES, useTabs } from '../../state/tabs';
import { ChangesView } from '../checkpoints';
import { showWaitingSession } from '../../app/attention';
import { confirmDialog } from '../../ui/confirm';
import { STOP_REASON_TEXT } from '../../ui/format';
import type { StopReason } from '@agentclientprotocol/sdk';
import { VisibleText, visibleText } from '../../ui/VisibleText';
import { agentName, describeWorktreeError, loadRecentFolders, useRepo } from '../agents';
import { confirmWorktreeDiscard, STRATEGIES } from '../session';
import './compare.css';
import { JudgeChoice, JudgePanel } from './JudgePanel';

interface RunStats {
  used: number | null;
  size: number | null;
  cost: string | null;
}

/** Opens each run's session tab in its own pane, splitting the window as needed (up to four panes). */
function openRunsInPanes(compare: Compare, agentName: (id: string) => string): void {
  const tabs = useTabs.getState();
  const runs = compare.runs.filter((r) => r.sessionId);
  runs.forEach((run, i) => {
    let pane = useTabs.getState().panes[i + 1];
    if (!pane && useTabs.getState().panes.length < MAX_PANES) {
      useTabs.getState().focusPane(useTabs.getState().panes.at(-1)!.id);
      const id = tabs.split('row');
      pane = id ? useTabs.getState().panes.find((p) => p.id === id) : undefined;
    }
    const target = pane ?? useTabs.getState().panes.at(-1)!;
    useTabs.getState().open({ id: `session-${run.sessionId}`, kind: 'session', title: agentName(run.agentId), props: { sessionId: run.sessionId } }, target.id);
  });
}

/** A comparison's tab title: which agents it compares (not its prompt, not ids). */
const compareTitle = (c: Compare, names: (agentId: string) => string): string => `Compare · ${c.runs.map((r) => names(r.agentId)).join(', ')}`;

/** The run's own time: the waits for the user (a permission, a question, a sign-in) are not counted. */
const elapsed = (run: CompareRun) => {
  const now = Date.now();
  const ms = Math.max(0, (run.endedAt ?? now) - run.startedAt - run.waitedMs - (run.waitingSince !== null ? now - run.waitingSince : 0));
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
};

function NewCompare({ onCreated }: { onCreated(c: Compare, names: (agentId: string) => string): void }) {
  const api = useApi();
  const [agents, setAgents] = useState<AgentSummary[]>([]);
  const [repo, setRepo] = useState(AppInfoContext.current?.homeDir ?? '');
  // The folder last used for a session is the likely repository (not the home folder).
  useEffect(() => {
    void loadRecentFolders(api).then((folders) => folders[0] && setRepo((r) => (r === (AppInfoContext.current?.homeDir ?? '') ? folders[0]! : r)));
  }, [api]);
  const [prompt, setPrompt] = useState('');
  const [base, setBase] = useState('');
  const repoInfo = useRepo(api, repo);
  const [chosen, setChosen] = useState<string[]>([]);
  const [judge, setJudge] = useState('');
  const [criteria, setCriteria] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api.call('agents.list', {}).then((r) => r.ok && setAgents(r.value.agents));
  }, [api]);
  const toggle = (id: string) => setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id]));
  const submit = async () => {
    setBusy(true);
    setError(null);
    const from = base || repoInfo?.currentBranch;
    const r = await api.call('compare.create', { repo, prompt, agentIds: chosen, ...(from ? { base: from } : {}), ...(judge ? { judge: { agentId: judge, criteria } } : {}) });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    onCreated(r.value, (id) => agentName(agents, id));
  };
  return (
    <form
      className="compare-new"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h1>Compare agents</h1>
      <p className="muted">
        One prompt to several agents, each a session in its own worktree on its own branch of the same repository. Then compare what they did, merge the one you
        like, and keep or discard the others.
      </p>
      <label>
        Repository
        <input
          value={repo}
          onChange={(e) => {
            setRepo(e.target.value);
            setBase('');
          }}
          placeholder="/path/to/a/git/checkout"
          data-testid="compare-repo"
        />
      </label>
      {repoInfo ? (
        <label>
          From the branch
          <select value={base || repoInfo.currentBranch || ''} onChange={(e) => setBase(e.target.value)} data-testid="compare-base">
            {repoInfo.branches.map((b) => (
              <option key={b.name} value={b.name}>
                {visibleText(b.name)}
              </option>
            ))}
          </select>
          <span className="muted small">Each agent's worktree goes under <VisibleText text={repoInfo.folder} />.</span>
        </label>
      ) : (
        repo && <p className="muted small">Compare mode needs a git repository: each agent works in its own worktree of it.</p>
      )}
      <label>
        Prompt
        <textarea rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="compare-prompt" />
      </label>
      <fieldset>
        <legend>Agents</legend>
        {agents.length === 0 && <p className="muted">No agents yet: install one from the Registry or add a custom agent.</p>}
        {agents.map((a) => (
          <label key={a.id} className="compare-agent">
            <input type="checkbox" checked={chosen.includes(a.id)} onChange={() => toggle(a.id)} /> {a.name}
          </label>
        ))}
      </fieldset>
      <JudgeChoice agents={agents} judge={judge} criteria={criteria} onJudge={setJudge} onCriteria={setCriteria} />
      {error && <p className="error" role="alert">{error}</p>}
      <button className="primary" type="submit" disabled={busy || !prompt.trim() || chosen.length === 0 || !repo} data-testid="compare-start">
        {busy ? 'Starting…' : `Compare ${chosen.length || ''} agent${chosen.length === 1 ? '' : 's'}`}
      </button>
    </form>
  );
}

/**
 * One agent's result: what its session changed in its worktree, read from the session's checkpoints (the
 * same change sets and review as everywhere else); "apply this one" merges its branch into the base. Once
 * another run is applied, this one is kept (a worktree session like any other) or discarded.
 */
function RunDiff({ compare, run, name }: { compare: Compare; run: CompareRun; name: string }) {
  const api = useApi();
  const [changes, setChanges] = useState<ChangeSet | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [strategy, setStrategy] = useState<MergeStrategy>('squash');
  const [refusal, setRefusal] = useState<WorktreeError | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(async () => {
    if (!run.sessionId) return;
    const r = await api.call('checkpoints.sessionChanges', { sessionId: run.sessionId });
    if (!r.ok) return setError(r.error.message);
    setChanges(r.value.folders[0]?.changes ?? null);
  }, [api, run.sessionId]);
  useEffect(() => {
    void load();
    return api.on('checkpoints.changed', (p) => {
      if (p.sessionId === run.sessionId) void load();
    });
  }, [api, load, run.endedAt, run.sessionId]);
  const label = STRATEGIES.find((s) => s.id === strategy)?.label.toLowerCase() ?? strategy;
  const apply = async () => {
    const go = await confirmDialog({
      title: `Apply ${name}'s changes?`,
      message: `${name}'s changes are committed on ${visibleText(run.branch)} and merged into ${visibleText(compare.base)} (${label}). Your checkout of ${visibleText(compare.base)} moves only if the merge goes through.`,
      confirm: 'Apply',
    });
    if (!go) return;
    setBusy(true);
    setRefusal(null);
    const r = await api.call('compare.apply', { compareId: compare.id, runId: run.id, strategy });
    setBusy(false);
    if (!r.ok) return useNotices.getState().push('error', r.error.message);
    if (!r.value.ok) return setRefusal(r.value.error);
    useNotices.getState().push('info', `Merged ${name}'s ${r.value.value.files.length} file(s) into ${visibleText(r.value.value.base)} (${label}).`);
  };
  const discard = async () => {
    const answer = await confirmWorktreeDiscard(api, { path: run.worktree, branch: run.branch, base: compare.base });
    if (!answer) return;
    if ('error' in answer) return useNotices.getState().push('error', answer.error);
    const r = await api.call('worktrees.discard', { path: run.worktree, unmerged: answer.unmerged });
    if (!r.ok) useNotices.getState().push('error', r.error.message);
    else if (!r.value.ok) useNotices.getState().push('error', describeWorktreeError(r.value.error));
  };
  const count = changes?.files.length ?? 0;
  const otherApplied = compare.runs.some((r) => r.id !== run.id && r.appliedAt !== null);
  const deciding = otherApplied && run.appliedAt === null && run.keptAt === null && !run.discarded;
  const refusedFiles = refusal && (refusal.kind === 'conflict' || refusal.kind === 'dirty') ? refusal.files : [];
  return (
    <div className="compare-run-diff" data-testid="compare-run-diff" data-branch={run.branch}>
      <div className="compare-run-head">
        <strong>{name}</strong>
        <code className="muted small"><VisibleText text={run.branch} /></code>
        <span className="muted">{run.discarded ? 'discarded' : changes ? `${count} file${count === 1 ? '' : 's'} changed` : '…'}</span>
        {run.appliedAt !== null ? (
          <button disabled>Applied</button>
        ) : deciding ? (
          <>
            <button onClick={() => void api.call('compare.keep', { compareId: compare.id, runId: run.id })} data-testid="compare-keep" title="It stays a worktree session: open it, continue it, finish it later">
              Keep
            </button>
            <button className="danger" onClick={() => void discard()} data-testid="compare-discard">
              Discard
            </button>
          </>
        ) : (
          !run.discarded &&
          !otherApplied && (
            <>
              <select value={strategy} onChange={(e) => setStrategy(e.target.value as MergeStrategy)} aria-label="How to merge" data-testid="compare-strategy">
                {STRATEGIES.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.label}
                  </option>
                ))}
              </select>
              <button className="primary" onClick={() => void apply()} disabled={busy || count === 0 || run.endedAt === null} data-testid="compare-apply">
                {busy ? 'Applying…' : 'Apply this one'}
              </button>
            </>
          )
        )}
        {run.keptAt !== null && !run.discarded && <span className="muted small">kept</span>}
      </div>
      {refusal && (
        <div className="error" role="alert" data-testid="compare-refusal">
          <p>{describeWorktreeError(refusal)}</p>
          {refusedFiles.length > 0 && (
            <ul>
              {refusedFiles.map((f) => (
                <li key={f}>
                  <VisibleText text={f} />
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {error && <p className="error">{error}</p>}
      {changes && !run.discarded && <ChangesView changes={changes} canRestore={false} onRestored={() => void load()} />}
    </div>
  );
}

function CompareView({ compareId }: { compareId: string }) {
  const api = useApi();
  const [compare, setCompare] = useState<Compare | null>(null);
  const [agents, setAgents] = useState<AgentSummary[]>([]);
  const [stats, setStats] = useState<Record<string, RunStats>>({});
  const [, tick] = useState(0);
  const refresh = useCallback(async () => {
    const r = await api.call('compare.get', { compareId });
    if (r.ok) setCompare(r.value);
  }, [api, compareId]);
  useEffect(() => {
    void refresh();
    void api.call('agents.list', {}).then((r) => r.ok && setAgents(r.value.agents));
  }, [api, refresh]);
  useEvent('compare.changed', (c) => c.id === compareId && setCompare(c), [compareId]);
  // A run discarded (here or from its session's Finish panel) is no longer a worktree.
  useEvent('worktrees.changed', (w) => w.removed && compare?.runs.some((r) => r.worktree === w.path) && void refresh(), [compare, refresh]);
  const running = compare?.runs.some((r) => !r.endedAt) ?? false;
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [running]);
  const sessionIds = useMemo(() => compare?.runs.map((r) => r.sessionId).filter((s): s is string => !!s) ?? [], [compare]);
  useEffect(() => {
    for (const sessionId of sessionIds) {
      void api.call('sessions.state', { sessionId, tail: 0 }).then((r) => {
        if (!r.ok) return;
        const u = r.value.thread.usage;
        setStats((s) => ({ ...s, [sessionId]: { used: u?.used ?? null, size: u?.size ?? null, cost: u?.cost ? `${u.cost.amount.toFixed(4)} ${u.cost.currency}` : null } }));
      });
    }
  }, [api, sessionIds, compare?.runs.map((r) => r.endedAt).join()]);
  if (!compare) return <p className="muted">Loading…</p>;
  // An agent removed since: never its internal id.
  const name = (id: string) => agentName(agents, id);
  const done = compare.runs.every((r) => r.endedAt);
  return (
    <div className="compare-view" data-testid="compare-view">
      <header>
        <h1>Comparison</h1>
        <p>
          <code>{compare.repo}</code>
          {compare.base && (
            <>
              {' '}
              from <code><VisibleText text={compare.base} /></code>
            </>
          )}{' '}
          at <code>{compare.baseCommit.slice(0, 10)}</code>
        </p>
        <blockquote>{compare.prompt}</blockquote>
        <div className="compare-actions">
          <button onClick={() => openRunsInPanes(compare, name)}>Show sessions side by side</button>
        </div>
      </header>
      <table className="compare-table" data-testid="compare-table">
        <thead>
          <tr>
            <th>Agent</th>
            <th>Status</th>
            <th>Time</th>
            <th>Context tokens</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {compare.runs.map((run) => {
            const st = run.sessionId ? stats[run.sessionId] : undefined;
            return (
              <tr key={run.id} data-testid="compare-row">
                <td>{name(run.agentId)}</td>
                <td>
                  {run.error ? (
                    <span className="error">failed: {run.error}</span>
                  ) : run.endedAt ? (
                    (run.stopReason ? (STOP_REASON_TEXT[run.stopReason as StopReason] ?? run.stopReason) : 'done')
                  ) : run.waitingSince !== null && run.sessionId ? (
                    <button className="needs-you" data-testid="compare-needs-you" title="Show the request" onClick={() => showWaitingSession(run.sessionId!, name(run.agentId))}>
                      needs you
                    </button>
                  ) : (
                    'working…'
                  )}
                </td>
                <td>{elapsed(run)}</td>
                <td>{st?.used != null ? `${st.used.toLocaleString()}${st.size ? ` / ${st.size.toLocaleString()}` : ''}` : '—'}</td>
                <td>{st?.cost ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <JudgePanel compare={compare} agents={agents} name={name} />
      {!done && <p className="muted">The diffs below update when each agent finishes.</p>}
      <div className="compare-diffs">
        {compare.runs.map((run) => (
          <RunDiff key={run.id} compare={compare} run={run} name={name(run.agentId)} />
        ))}
      </div>
    </div>
  );
}

export function CompareTab({ tab }: TabViewProps) {
  const compareId = typeof tab.props.compareId === 'string' ? tab.props.compareId : null;
  if (compareId) return <CompareView compareId={compareId} />;
  return (
    <NewCompare
      onCreated={(c, names) => {
        useTabs.getState().update(tab.id, { title: compareTitle(c, names), props: { compareId: c.id } });
      }}
    />
  );
}
