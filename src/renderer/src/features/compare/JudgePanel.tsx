import { useState } from 'react';
import type { Compare } from '@shared/contract/compare';
import type { AgentSummary } from '@shared/contract/agents';
import { useApi } from '../../app/api-context';
import { VisibleText } from '../../ui/VisibleText';

/** Saves text as a file through the browser's download (the page makes the file; nothing is fetched). */
function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/html' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The judge's choice in the new-comparison form: an agent (or none) and its criteria. */
export function JudgeChoice({
  agents,
  judge,
  criteria,
  onJudge,
  onCriteria,
}: {
  agents: AgentSummary[];
  judge: string;
  criteria: string;
  onJudge(id: string): void;
  onCriteria(text: string): void;
}) {
  return (
    <fieldset>
      <legend>Judge</legend>
      <label>
        Agent that scores the runs once all ended
        <select value={judge} onChange={(e) => onJudge(e.target.value)} data-testid="compare-judge">
          <option value="">No judge</option>
          {agents.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      {judge && (
        <label>
          Criteria
          <textarea rows={2} value={criteria} onChange={(e) => onCriteria(e.target.value)} placeholder="correctness, completeness, size of the change" data-testid="compare-criteria" />
        </label>
      )}
    </fieldset>
  );
}

/** The judge's verdict beside the runs (its text as text), a judge to name when there is none, and the export. */
export function JudgePanel({ compare, agents, name }: { compare: Compare; agents: AgentSummary[]; name(id: string): string }) {
  const api = useApi();
  const [agentId, setAgentId] = useState('');
  const [criteria, setCriteria] = useState('');
  const [error, setError] = useState<string | null>(null);
  const judge = compare.judge;
  const exportHtml = async () => {
    const r = await api.call('compare.export', { compareId: compare.id });
    if (!r.ok) return setError(r.error.message);
    download(r.value.fileName, r.value.html);
  };
  const runLabel = (runId: string) => {
    const i = compare.runs.findIndex((r) => r.id === runId);
    return `Run ${i + 1} (${name(compare.runs[i]?.agentId ?? '')})`;
  };
  return (
    <section className="compare-judge" data-testid="compare-judge-panel">
      <h2>Verdict</h2>
      {judge ? (
        <>
          <p className="muted">
            Judge: <VisibleText text={name(judge.agentId)} />
            {judge.criteria && (
              <>
                {' '}
                · criteria: <VisibleText text={judge.criteria} />
              </>
            )}
          </p>
          {judge.verdict ? (
            <>
              {judge.scores.length > 0 && (
                <ul data-testid="compare-scores">
                  {judge.scores.map((s) => (
                    <li key={s.runId}>
                      {runLabel(s.runId)}: <strong>{s.score}/10</strong>
                    </li>
                  ))}
                </ul>
              )}
              <pre className="compare-verdict" data-testid="compare-verdict">
                {judge.verdict}
              </pre>
            </>
          ) : judge.error ? (
            <p className="error">{judge.error}</p>
          ) : (
            <p className="muted">{judge.sessionId ? 'Judging…' : 'The judge reads the runs once every one ended.'}</p>
          )}
        </>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void api.call('compare.judge', { compareId: compare.id, judge: { agentId, criteria } }).then((r) => setError(r.ok ? null : r.error.message));
          }}
        >
          <JudgeChoice agents={agents} judge={agentId} criteria={criteria} onJudge={setAgentId} onCriteria={setCriteria} />
          <button type="submit" disabled={!agentId}>
            Judge the runs
          </button>
        </form>
      )}
      <div className="compare-actions">
        <button onClick={() => void exportHtml()} data-testid="compare-export" title="One HTML file: the prompt, the runs, their diffs and the verdict">
          Export as HTML
        </button>
      </div>
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}
