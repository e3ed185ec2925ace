import { useEffect, useState } from 'react';
import type { ReopenPlan } from '@shared/contract/sessions';
import type { HistorySession } from '@shared/contract/history';
import { unboundSource } from '@shared/contract/history-import';
import { useApi } from '../../app/api-context';
import { useNotices } from '../../app/notices';
import { useTabs } from '../../state/tabs';
import { useAgents } from '../agents';
import { openLiveSessionTab } from '../session';
import { ContinueAgentChoice } from './ContinueAgentChoice';
import { landInLiveTab, loadAllEntries, REOPEN_TEXT, reopenPlan, restoreSession, summarize } from './continue';
import { basename } from './format';
import { ErrorAlert } from '../../ui/Alert';
import { FormActions } from '../../ui/FormActions';
import { VisibleText } from '../../ui/VisibleText';

interface Props {
  /** The transcript tab holding the panel: a reopened session comes back live in it. */
  tabId: string;
  sessionId: string;
  session: HistorySession | null;
  agentId: string | null;
  cwd: string | null;
  agentName: string;
  live: boolean;
  title: string;
}

type Stage = { kind: 'idle' } | { kind: 'summarizing' } | { kind: 'editing'; text: string } | { kind: 'restoring' };

/**
 * The bottom of a transcript: go back to the live session (when it still runs), reopen it live (when its
 * agent can resume or load sessions: the panel says which), or continue in a new session with the same agent
 * and folder, primed with an editable summary.
 */
export function ContinuePanel({ tabId, sessionId, session, agentId: storedAgentId, cwd, agentName: storedAgentName, live, title }: Props) {
  const api = useApi();
  // An imported session's agent, as the user chose it here (until the stored session says so too).
  const [chosen, setChosen] = useState<string | null>(null);
  const agentId = chosen ?? storedAgentId;
  const chosenName = useAgents((s) => (chosen ? s.agents.find((a) => a.id === chosen)?.name : undefined));
  const agentName = chosenName ?? storedAgentName;
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const [plan, setPlan] = useState<ReopenPlan | null>(null);
  const [reopened, setReopened] = useState<string | null>(null);
  // An earlier reopen of this run that the agent refused (e.g. from another tab): say why.
  const endedError = useAgents((s) => s.endedErrors[sessionId] ?? null);
  useEffect(() => {
    if (live) return;
    let stale = false;
    setPlan(null);
    void reopenPlan(api, sessionId).then((p) => {
      if (!stale) setPlan(p);
    });
    return () => {
      stale = true;
    };
  }, [api, sessionId, live, agentId]);
  const canRestore = plan?.mode === 'resume' || plan?.mode === 'load';
  // Imported from a tool no configured agent serves: nothing can continue it until one is added.
  const unbound = agentId !== null && unboundSource(agentId) !== null;

  const choose = async (id: string) => {
    setError(null);
    const r = await api.call('historyImport.chooseAgent', { sessionId, agentId: id });
    if (r.ok) setChosen(r.value.agentId);
    else setError(`Could not choose that agent: ${r.error.message}`);
  };

  const prepare = async () => {
    setError(null);
    setStage({ kind: 'summarizing' });
    try {
      const entries = await loadAllEntries(api, sessionId);
      const text = summarize(session ?? { title, cwd: cwd ?? '', lastActivityAt: Date.now() }, agentName, entries);
      setStage({ kind: 'editing', text });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setStage({ kind: 'idle' });
    }
  };

  // The new session's tab creates it (Starting…, with Cancel and Retry there) and sends the summary first.
  const start = (text: string) => {
    if (!agentId || !cwd) return;
    setError(null);
    useTabs.getState().open({ kind: 'session', title: `${agentName} · ${basename(cwd)}`, props: { create: { agentId, cwd, prompt: text } } });
    setStage({ kind: 'idle' });
  };

  const restore = async () => {
    setError(null);
    setStage({ kind: 'restoring' });
    const r = await restoreSession(api, sessionId);
    setStage({ kind: 'idle' });
    if ('error' in r) setError(`Could not reopen this session: ${r.error}. You can continue it in a new session instead.`);
    else {
      if (plan?.mode === 'resume' || plan?.mode === 'load') {
        useNotices.getState().push('info', `“${title}” is live again: ${plan.agentName} ${REOPEN_TEXT[plan.mode]}.`);
        setReopened(`Reopened: ${plan.agentName} ${REOPEN_TEXT[plan.mode]}.`);
      }
      landInLiveTab(tabId, r.sessionId, title);
    }
  };

  if (live) {
    return (
      <div className="transcript-continue" data-testid="transcript-continue">
        <span data-testid="transcript-live-note">{reopened ?? 'This session is still running.'}</span>
        <button className="primary" onClick={() => openLiveSessionTab(sessionId, title)} data-testid="transcript-open-live">
          Go to the live session
        </button>
      </div>
    );
  }

  if (stage.kind === 'editing') {
    return (
      <div className="transcript-continue editing" data-testid="transcript-continue">
        <label className="transcript-continue-label" htmlFor={`continue-${sessionId}`}>
          A new session with <strong><VisibleText text={agentName} /></strong> in <code><VisibleText text={cwd ?? ''} /></code> starts with this summary as its first message. Edit it as you like:
        </label>
        <textarea
          id={`continue-${sessionId}`}
          className="transcript-continue-text"
          value={stage.text}
          onChange={(e) => setStage({ kind: 'editing', text: e.target.value })}
          rows={8}
          data-testid="continue-summary"
        />
        {error && (
          <ErrorAlert>{error}</ErrorAlert>
        )}
        <FormActions>
          <button className="primary" disabled={!agentId || !cwd} onClick={() => start(stage.text)} data-testid="continue-start">
            Start the new session
          </button>
          <button disabled={!agentId || !cwd} onClick={() => start('')} title="Start it with an empty conversation">
            Start without the summary
          </button>
          <button onClick={() => setStage({ kind: 'idle' })}>
            Cancel
          </button>
        </FormActions>
      </div>
    );
  }

  return (
    <div className="transcript-continue" data-testid="transcript-continue">
      <span className="muted" data-testid="transcript-reopen-plan" data-mode={plan ? (plan.mode ?? 'none') : undefined} title={plan?.reason}>
        {plan === null ? 'This session has ended. Checking whether its agent can reopen it…' : `This session has ended. ${plan.reason}`}
      </span>
      {session?.importedFrom && (
        <ContinueAgentChoice source={session.importedFrom} agentId={agentId} disabled={stage.kind !== 'idle'} onChoose={(id) => void choose(id)} />
      )}
      {canRestore && (
        <button
          className="primary"
          onClick={() => void restore()}
          disabled={stage.kind === 'restoring'}
          title={plan?.reason}
          data-testid="transcript-restore"
        >
          {stage.kind === 'restoring' ? 'Reopening…' : `Reopen (${plan?.mode === 'resume' ? 'resume' : 'load'})`}
        </button>
      )}
      <button
        className={canRestore ? '' : 'primary'}
        onClick={() => void prepare()}
        disabled={!agentId || !cwd || unbound || stage.kind === 'summarizing'}
        title={agentId && cwd ? `A new session with ${agentName} in ${cwd}, primed with a summary of this one` : 'Loading…'}
        data-testid="transcript-continue-new"
      >
        {stage.kind === 'summarizing' ? 'Summarizing…' : 'Continue in a new session'}
      </button>
      {(error ?? endedError) && (
        <span className="error small" role="alert" data-testid="transcript-reopen-error">
          {error ?? `The last reopen failed: ${endedError}`}
        </span>
      )}
    </div>
  );
}
