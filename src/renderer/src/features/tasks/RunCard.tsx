import { useState } from 'react';
import type { TaskRun } from '@shared/contract/tasks';
import { useApi } from '../../app/api-context';
import { useNotices } from '../../app/notices';
import { confirmDialog } from '../../ui/confirm';
import { VisibleText } from '../../ui/VisibleText';
import { byPrompt, TurnChanges, useTurnCheckpoints } from '../checkpoints';
import { agentName, useAgents } from '../agents';
import { openLiveSessionTab, WorktreeBar } from '../session';
import { act } from './state';
import { defaultMore, runCost, runTime, STATE_TEXT, when } from './format';
import { PauseCard } from './PauseCard';
import { revertRun } from './revert';

const TRIGGER_TEXT: Record<TaskRun['trigger'], string> = {
  now: 'run now',
  queue: 'queued',
  schedule: 'on its schedule',
  missed: 'a missed run',
  rerun: 're-run',
  session: 'an interactive session',
  commit: 'a new commit on its branch',
};

/** Text an agent wrote, line by line, its hidden characters shown. */
export function Lines({ text, testId }: { text: string; testId?: string }) {
  return (
    <div className="task-lines" data-testid={testId}>
      {text.split('\n').map((line, i) => (
        <div key={i}>
          <VisibleText text={line} />
        </div>
      ))}
    </div>
  );
}

/** One run in the Inbox: what ran, how it ended, cost and time, last message, changes per turn, and what to do next. */
const HANDLED_TEXT: Record<TaskRun['inbox'], string> = { none: '', open: '', merged: 'merged', reverted: 'reverted', dismissed: 'dismissed', continued: 'continued' };

/** `handled`: out of the Inbox already (merged, reverted…): it can be looked at and re-run. */
export function RunCard({ run, now, handled = false }: { run: TaskRun; now: number; handled?: boolean }) {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const turns = useTurnCheckpoints(api, run.sessionId);
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const prompts = [...byPrompt(turns)];
  const title = run.name;
  const done = async <T,>(f: () => Promise<T>) => {
    setBusy(true);
    try {
      return await f();
    } finally {
      setBusy(false);
    }
  };
  const setInbox = (inbox: 'merged' | 'reverted' | 'dismissed' | 'continued') => act('Could not update the Inbox', api.call('tasks.inbox.set', { runId: run.id, inbox }));
  const revert = () =>
    done(async () => {
      if (!run.sessionId) return;
      const yes = await confirmDialog({ title: `Revert what “${title}” changed?`, message: 'Every file the run changed is put back as it was before it started (files changed since are merged where clean, otherwise left as they are).', confirm: 'Revert', danger: true });
      if (!yes) return;
      const said = await revertRun(api, run.sessionId);
      useNotices.getState().push(said.ok ? 'info' : 'error', said.text);
      if (said.ok) await setInbox('reverted');
    });
  const continueWith = () =>
    done(async () => {
      const text = prompt.trim();
      if (!text || !run.sessionId) return;
      if (run.state === 'paused' && run.pause) {
        if (!(await act('Could not continue the run', api.call('tasks.continue', { runId: run.id, more: defaultMore(run.pause), prompt: text })))) return;
      } else {
        const sent = await act('Could not send the prompt', api.call('sessions.prompt', { sessionId: run.sessionId, prompt: [{ type: 'text', text }] }));
        if (!sent) return;
        await setInbox('continued');
      }
      setPrompt('');
      openLiveSessionTab(run.sessionId, title);
    });
  return (
    <article className={`task-run state-${run.state}`} data-testid="inbox-run" data-run-id={run.id} data-state={run.state} aria-label={run.name}>
      <header className="task-run-head">
        <strong className="task-run-name" data-testid="inbox-run-name">
          <VisibleText text={run.name} />
        </strong>
        <span className={`task-state ${run.state}`} data-testid="inbox-run-state">
          {STATE_TEXT[run.state]}
        </span>
        {handled && (
          <span className="task-state" data-testid="inbox-run-handled">
            {HANDLED_TEXT[run.inbox]}
          </span>
        )}
        <span className="muted small">
          <VisibleText text={agentName(agents, run.agentId)} /> · {TRIGGER_TEXT[run.trigger]} · {when(run.endedAt ?? run.startedAt ?? run.queuedAt)}
        </span>
      </header>
      <div className="task-run-facts small">
        <span data-testid="inbox-run-cost">{runCost(run)}</span> · <span data-testid="inbox-run-time">{runTime(run, now)}</span>
        {run.worktree && (
          <>
            {' '}
            · in <VisibleText text={run.branch ?? run.worktree} />
          </>
        )}
        {!run.worktree && (
          <>
            {' '}
            · in <VisibleText text={run.folder} />
          </>
        )}
      </div>
      {run.error && (
        <p className="error small" data-testid="inbox-run-error">
          <VisibleText text={run.error} />
        </p>
      )}
      {!handled && run.state === 'paused' && run.pause && <PauseCard run={run} />}
      {!handled && run.state === 'running' && run.inbox === 'open' && run.sessionId && (
        <p className="warning small" role="alert" data-testid="inbox-run-waits">
          It asked something its policy may not answer, and waits for you.{' '}
          <button className="primary" onClick={() => openLiveSessionTab(run.sessionId!, title)} data-testid="inbox-answer">
            Answer it
          </button>
        </p>
      )}
      {run.holdReason && <p className="muted small">Held: {run.holdReason}</p>}
      {run.lastMessage && (
        <blockquote className="task-last" aria-label="The agent's last message">
          <Lines text={run.lastMessage} testId="inbox-run-last" />
        </blockquote>
      )}
      {run.answers.length > 0 && (
        <details className="task-answers" data-testid="inbox-run-answers">
          <summary>Answered by its policy while nobody watched ({run.answers.length})</summary>
          <ul>
            {run.answers.map((a, i) => (
              <li key={i} data-testid="inbox-run-answer" data-allowed={a.allowed}>
                {a.allowed ? 'Allowed' : 'Refused'} <VisibleText text={a.tool} /> <span className="muted small">at {new Date(a.at).toLocaleTimeString()}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {run.sessionId && prompts.length > 0 && (
        <div className="task-turns" data-testid="inbox-run-turns">
          {prompts.map(([promptId, list], i) => (
            <div key={promptId} className="task-turn">
              <span className="muted small">Turn {i + 1}</span>
              <TurnChanges sessionId={run.sessionId!} turns={list} />
            </div>
          ))}
        </div>
      )}
      {!handled && run.sessionId && run.worktree && <WorktreeBar sessionId={run.sessionId} cwd={run.worktree} idle={run.state !== 'running'} />}
      {!handled && run.sessionId && run.state !== 'running' && (
        <div className="task-continue">
          <input
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && void continueWith()}
            placeholder="Continue the session with a new prompt…"
            aria-label="A new prompt for the run's session"
            data-testid="inbox-continue-input"
          />
          <button disabled={busy || !prompt.trim()} onClick={() => void continueWith()} data-testid="inbox-continue">
            Continue
          </button>
        </div>
      )}
      <div className="task-run-actions">
        {run.sessionId && (
          <button onClick={() => openLiveSessionTab(run.sessionId!, title)} data-testid="inbox-open-session">
            Open session
          </button>
        )}
        {!handled && run.worktree && (
          <button disabled={busy} onClick={() => void setInbox('merged')} title="After merging or opening a pull request with Finish…" data-testid="inbox-merged">
            Mark merged
          </button>
        )}
        {!handled && run.sessionId && run.state !== 'running' && (
          <button disabled={busy} onClick={() => void revert()} data-testid="inbox-revert">
            Revert
          </button>
        )}
        <button disabled={busy} onClick={() => void done(() => act('Could not run it again', api.call('tasks.rerun', { runId: run.id })))} data-testid="inbox-rerun">
          Re-run
        </button>
        {run.state === 'running' && (
          <button disabled={busy} onClick={() => void act('Could not cancel the run', api.call('tasks.cancel', { runId: run.id }))} data-testid="inbox-cancel">
            Cancel
          </button>
        )}
        {!handled && (
          <button disabled={busy} onClick={() => void setInbox('dismissed')} data-testid="inbox-dismiss">
            Dismiss
          </button>
        )}
      </div>
    </article>
  );
}
