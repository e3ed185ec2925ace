import { useShallow } from 'zustand/react/shallow';
import { useEffect, useState } from 'react';
import type { ContainerChoice } from '@shared/contract/containers';
import { LIMIT_KEYS, type LimitKey, type RunPlace, type RunPolicy, type Schedule, type SpendLimits, type TaskInput } from '@shared/contract/tasks';
import { LOCAL_HOST_ID } from '@shared/contract/hosts';
import { useApi } from '../../app/api-context';
import { FormActions } from '../../ui/FormActions';
import { visibleText } from '../../ui/VisibleText';
import { agentName, syncAgents, useAgents } from '../agents';
import { syncHosts, useHosts } from '../hosts';
import { act } from './state';
import { CommitTrigger } from './CommitTrigger';
import { TaskContainer } from './TaskContainer';
import { ScheduleEditor } from './ScheduleEditor';

const LIMIT_LABEL: Record<LimitKey, string> = {
  runTokens: 'Tokens per run',
  runMoney: 'USD per run',
  runMinutes: 'Minutes per run',
  dayTokens: 'Tokens per day',
  dayMoney: 'USD per day',
};

const POLICY_TEXT: Record<RunPolicy, string> = {
  ask: 'Ask me: every request waits in the Inbox',
  reads: 'Allow reads and searches; ask for the rest',
  edits: 'Allow reads, searches and edits in its folder; ask for the rest',
  refuse: 'Refuse every request',
};

/** A new task, or one being edited: its prompts, agent, folder, where it runs, its policy, limits and schedule. */
export function TaskForm({ id, initial, onDone }: { id?: string; initial: Partial<TaskInput>; onDone(): void }) {
  const api = useApi();
  useEffect(() => {
    syncAgents(api);
    syncHosts(api);
  }, [api]);
  const agents = useAgents((s) => s.agents);
  const hosts = useHosts(useShallow((s) => s.hosts.filter((h) => h.kind === 'ssh')));
  const [name, setName] = useState(initial.name ?? '');
  const [prompts, setPrompts] = useState<string[]>(initial.prompts?.length ? initial.prompts : ['']);
  const [agentId, setAgentId] = useState(initial.agentId ?? '');
  const [folder, setFolder] = useState(initial.folder ?? '');
  const [place, setPlace] = useState<RunPlace>(initial.place ?? 'folder');
  const [hostId, setHostId] = useState<string>(initial.hostId ?? '');
  const [policy, setPolicy] = useState<RunPolicy>(initial.policy ?? 'ask');
  const [limits, setLimits] = useState<Record<LimitKey, string>>(() => Object.fromEntries(LIMIT_KEYS.map((k) => [k, initial.limits?.[k]?.toString() ?? ''])) as Record<LimitKey, string>);
  const [schedule, setSchedule] = useState<Schedule | null>(initial.schedule ?? null);
  const [container, setContainer] = useState<ContainerChoice | null>(initial.container ?? null);
  const [onBranch, setOnBranch] = useState<string | null>(initial.onCommit?.branch ?? null);
  const [scheduleProblem, setScheduleProblem] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!agentId && agents[0]) setAgentId(agents[0].id);
  }, [agents, agentId]);

  const limitValues = (): SpendLimits | string => {
    const out: SpendLimits = {};
    for (const k of LIMIT_KEYS) {
      const raw = limits[k].trim();
      if (!raw) continue;
      const n = Number(raw);
      if (!Number.isFinite(n) || n <= 0) return `${LIMIT_LABEL[k]}: a number above 0, or empty for no limit`;
      out[k] = k === 'runTokens' || k === 'dayTokens' ? Math.round(n) : n;
    }
    return out;
  };
  const save = async () => {
    const lim = limitValues();
    if (typeof lim === 'string') return setError(lim);
    const list = prompts.map((p) => p.trim()).filter(Boolean);
    if (!name.trim()) return setError('The task needs a name.');
    if (list.length === 0) return setError('The task needs a prompt.');
    if (!agentId) return setError('Choose the agent that runs it.');
    if (!folder.trim()) return setError('Choose the folder it works in.');
    if (place === 'ssh' && !hostId) return setError('Choose the SSH host it runs on.');
    if (scheduleProblem) return setError(scheduleProblem);
    if (onBranch !== null && !onBranch.trim()) return setError('Name the branch whose new commits run the task.');
    const onCommit = onBranch === null ? null : { branch: onBranch.trim() };
    if (container?.source.kind === 'image' && !container.source.image.trim()) return setError('Name the image the run’s container starts from.');
    const task: TaskInput = { name: name.trim(), prompts: list, agentId, folder: folder.trim(), place, policy, limits: lim, schedule, onCommit, container, ...(place === 'ssh' ? { hostId } : {}) };
    setBusy(true);
    const r = await api.call('tasks.save', { ...(id ? { id } : {}), task });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    onDone();
  };
  return (
    <form
      className="task-form"
      data-testid="task-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h3>{id ? 'Edit the task' : 'New task'}</h3>
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} data-testid="task-name" />
      </label>
      <fieldset>
        <legend>Prompts, sent one after another</legend>
        {prompts.map((p, i) => (
          <div key={i} className="task-prompt-row">
            <textarea value={p} rows={2} onChange={(e) => setPrompts(prompts.map((x, j) => (j === i ? e.target.value : x)))} aria-label={`Prompt ${i + 1}`} data-testid="task-prompt" />
            {prompts.length > 1 && (
              <button type="button" className="icon" aria-label={`Remove prompt ${i + 1}`} onClick={() => setPrompts(prompts.filter((_, j) => j !== i))}>
                ×
              </button>
            )}
          </div>
        ))}
        {prompts.length < 20 && (
          <button type="button" className="link-button small" onClick={() => setPrompts([...prompts, ''])} data-testid="task-add-prompt">
            Add a prompt
          </button>
        )}
      </fieldset>
      <label>
        Agent{' '}
        <select value={agentId} onChange={(e) => setAgentId(e.target.value)} data-testid="task-agent">
          {agents.map((a) => (
            <option key={a.id} value={a.id}>
              {visibleText(agentName(agents, a.id))}
            </option>
          ))}
        </select>
      </label>
      <label>
        Folder <input value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/path/to/the/project" data-testid="task-folder" />
      </label>
      <label>
        Runs in{' '}
        <select value={place} onChange={(e) => setPlace(e.target.value as RunPlace)} data-testid="task-place">
          <option value="folder">This folder</option>
          <option value="worktree">A new git worktree of its repository (review, then merge or open a PR)</option>
          {(hosts.length > 0 || place === 'ssh') && <option value="ssh">The folder on an SSH host</option>}
        </select>
      </label>
      {place === 'ssh' && (
        <label>
          Host{' '}
          <select value={hostId} onChange={(e) => setHostId(e.target.value)} data-testid="task-host">
            <option value="">Choose…</option>
            {hosts
              .filter((h) => h.id !== LOCAL_HOST_ID)
              .map((h) => (
                <option key={h.id} value={h.id}>
                  {visibleText(h.label)}
                </option>
              ))}
          </select>
        </label>
      )}
      <TaskContainer hostId={place === 'ssh' && hostId ? hostId : LOCAL_HOST_ID} value={container} onChange={setContainer} />
      <label>
        While nobody watches{' '}
        <select value={policy} onChange={(e) => setPolicy(e.target.value as RunPolicy)} data-testid="task-policy">
          {(Object.keys(POLICY_TEXT) as RunPolicy[]).map((p) => (
            <option key={p} value={p}>
              {POLICY_TEXT[p]}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="task-limits">
        <legend>Limits (empty: none). A run that reaches one is paused and asks.</legend>
        {LIMIT_KEYS.map((k) => (
          <label key={k}>
            {LIMIT_LABEL[k]} <input type="number" min="0" step="any" value={limits[k]} onChange={(e) => setLimits({ ...limits, [k]: e.target.value })} data-testid={`task-limit-${k}`} />
          </label>
        ))}
      </fieldset>
      <ScheduleEditor value={schedule} onChange={setSchedule} onProblem={setScheduleProblem} />
      <CommitTrigger folder={folder} branch={onBranch} onChange={setOnBranch} />
      {error && (
        <p className="error small" role="alert" data-testid="task-form-error">
          {error}
        </p>
      )}
      <FormActions>
        <button type="submit" className="primary" disabled={busy} data-testid="task-save">
          Save task
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </FormActions>
    </form>
  );
}

/** "Run this again": a task made of the session, not yet saved. */
export async function taskFromSession(api: ReturnType<typeof useApi>, sessionId: string): Promise<TaskInput | null> {
  return act('Could not make a task of the session', api.call('tasks.fromSession', { sessionId }));
}
