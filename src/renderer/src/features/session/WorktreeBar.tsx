import { GitBranch } from 'lucide-react';
import { memo, useCallback, useEffect, useState } from 'react';
import { SETUP_OUTPUT_CHARS, type MergeStrategy, type SetupRun, type WorktreeError, type WorktreeInfo, type WorktreeStatus } from '@shared/contract/worktrees';
import { useApi, useEvent } from '../../app/api-context';
import { openExternalLink } from '../../app/link-confirm';
import { useNotices } from '../../app/notices';
import { confirmDialog } from '../../ui/confirm';
import { VisibleText, visibleText } from '../../ui/VisibleText';
import { openFileTab } from './files';
import { describeWorktreeError } from '../agents';
import { confirmWorktreeDiscard, STRATEGIES } from './worktree-actions';

type Note = { ok: boolean; text: string; url?: string | null; output?: string } | null;

/** The worktree a session works in (null: its folder is not one Switchboard made or was given), kept current. */
export function useWorktree(cwd: string | null): { info: WorktreeInfo | null; status: WorktreeStatus | null; refresh(): void } {
  const api = useApi();
  const [info, setInfo] = useState<WorktreeInfo | null>(null);
  const [status, setStatus] = useState<WorktreeStatus | null>(null);
  const refresh = useCallback(() => {
    if (!cwd) return;
    void api.call('worktrees.describe', { paths: [cwd] }).then(async (r) => {
      const found = r.ok ? (r.value.worktrees[cwd] ?? null) : null;
      setInfo(found);
      if (!found) return setStatus(null);
      const s = await api.call('worktrees.status', { path: cwd });
      setStatus(s.ok && s.value.ok ? s.value.value : null);
    });
  }, [api, cwd]);
  useEffect(refresh, [refresh]);
  useEvent('worktrees.changed', (e) => e.path === cwd && refresh(), [cwd, refresh]);
  return { info, status, refresh };
}

/** Under a worktree session's header: its branch, base, ahead/behind, and the Finish panel. */
export const WorktreeBar = memo(function WorktreeBar({ sessionId, cwd, idle }: { sessionId: string; cwd: string | null; idle: boolean }) {
  const { info, status, refresh } = useWorktree(cwd);
  const [open, setOpen] = useState(false);
  // A turn that ended may have changed files or made commits.
  useEffect(() => {
    if (idle) refresh();
  }, [idle, refresh]);
  if (!info || !cwd) return null;
  const s = status;
  return (
    <>
      <div className="worktree-bar" data-testid="worktree-bar" data-branch={info.branch}>
        <GitBranch size={13} aria-hidden />
        <strong data-testid="worktree-branch"><VisibleText text={info.branch} /></strong>
        <span className="muted">from <VisibleText text={info.base} /></span>
        {s && (
          <span className="muted small" data-testid="worktree-counts" title={`${s.ahead} commits ahead of ${info.base}, ${s.behind} behind`}>
            ↑{s.ahead} ↓{s.behind}
            {s.files.length > 0 ? ` · ${s.files.length} uncommitted` : ''}
            {s.upstream ? ` · pushed to ${s.upstream.name}${s.upstream.ahead ? ` (${s.upstream.ahead} not pushed)` : ''}` : ''}
          </span>
        )}
        {s?.missing && <span className="error small">the worktree folder is gone</span>}
        <span className="spacer" />
        <button className={open ? 'on' : ''} onClick={() => setOpen(!open)} aria-expanded={open} data-testid="worktree-finish-toggle">
          Finish…
        </button>
      </div>
      <SetupPanel path={cwd} />
      {open && <FinishPanel sessionId={sessionId} info={info} status={s} refresh={refresh} idle={idle} />}
    </>
  );
});

/** The repository's setup command in this worktree: its output as it comes, Cancel while it runs. */
function SetupPanel({ path }: { path: string }) {
  const api = useApi();
  const [run, setRun] = useState<SetupRun | null>(null);
  const [output, setOutput] = useState('');
  const [hidden, setHidden] = useState(false);
  // The output from its first byte: what the run kept so far, then each event from where it left off (an event
  // already in what was kept is skipped; one after a gap asks for the run again).
  const [reload, setReload] = useState(0);
  useEffect(() => {
    void api.call('worktrees.setupRuns', { path }).then((r) => {
      const last = r.ok ? r.value.runs.at(-1) : undefined;
      if (last) {
        setRun(last);
        setOutput(last.output ?? last.ended?.tail ?? '');
      }
    });
  }, [api, path, reload]);
  useEvent('worktrees.setupOutput', (e) => {
    if (e.path !== path) return;
    setRun((r) => (r && r.id === e.id ? r : { id: e.id, path, command: '', startedAt: Date.now(), ended: null }));
    setOutput((o) => {
      if (e.offset > o.length) {
        if (o.length < SETUP_OUTPUT_CHARS) setReload((n) => n + 1);
        return o;
      }
      return (o + e.chunk.slice(o.length - e.offset)).slice(0, SETUP_OUTPUT_CHARS);
    });
  }, [path]);
  useEvent('worktrees.setupEnded', (e) => e.path === path && setRun((r) => (r ? { ...r, ended: e.end } : r)), [path]);
  if (!run || hidden) return null;
  const ended = run.ended;
  return (
    <div className={`worktree-setup${ended && ended.status !== 'succeeded' ? ' failed' : ''}`} data-testid="worktree-setup" data-status={ended?.status ?? 'running'}>
      <div className="worktree-setup-head">
        <strong>Setup</strong>
        <span className="muted small">
          {ended ? { succeeded: 'done', failed: `failed (exit ${ended.exitCode ?? '?'})`, cancelled: 'cancelled', timed_out: 'stopped at its timeout' }[ended.status] : 'running…'}
        </span>
        <span className="spacer" />
        {!ended && (
          <button onClick={() => void api.call('worktrees.setupCancel', { id: run.id })} data-testid="worktree-setup-cancel">
            Cancel
          </button>
        )}
        {ended && <button onClick={() => setHidden(true)}>Hide</button>}
      </div>
      <pre className="worktree-setup-output" data-testid="worktree-setup-output">
        {ended && output.length >= SETUP_OUTPUT_CHARS ? `${output}\n…\n${ended.tail}` : output}
      </pre>
    </div>
  );
}

function FinishPanel({ sessionId, info, status, refresh, idle }: { sessionId: string; info: WorktreeInfo; status: WorktreeStatus | null; refresh(): void; idle: boolean }) {
  const api = useApi();
  const [note, setNote] = useState<Note>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState('');
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const [strategy, setStrategy] = useState<MergeStrategy>('merge');
  const [conflict, setConflict] = useState<Extract<WorktreeError, { kind: 'conflict' }> | null>(null);
  const [prTitle, setPrTitle] = useState('');
  const [prBody, setPrBody] = useState('');
  const files = status?.files ?? [];
  const selected = chosen ?? new Set(files.map((f) => f.path));

  const run = async <T,>(what: string, call: () => Promise<{ ok: true; value: { ok: true; value: T } | { ok: false; error: WorktreeError } } | { ok: false; error: { message: string } }>, done: (v: T) => Note) => {
    setBusy(what);
    setNote(null);
    setConflict(null);
    try {
      const r = await call();
      if (!r.ok) return setNote({ ok: false, text: r.error.message });
      if (!r.value.ok) {
        const e = r.value.error;
        if (e.kind === 'conflict') setConflict(e);
        return setNote({ ok: false, text: describeWorktreeError(e), ...(e.kind === 'git_failed' || e.kind === 'push_rejected' ? { output: e.output } : {}) });
      }
      setNote(done(r.value.value));
    } finally {
      setBusy(null);
      refresh();
    }
  };
  const prompt = async (text: string) => {
    const r = await api.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
    if (!r.ok) useNotices.getState().push('error', `Not sent to the agent: ${r.error.message}`);
  };

  const commit = () =>
    run('commit', () => api.call('worktrees.commit', { path: info.path, message, files: [...selected] }), (v) => {
      setMessage('');
      setChosen(null);
      return { ok: true, text: `Committed ${v.commit.sha.slice(0, 8)} “${v.commit.subject}”.` };
    });
  const merge = () =>
    run('merge', () => api.call('worktrees.merge', { path: info.path, strategy }), (v) => ({ ok: true, text: `${visibleText(v.base)} is now at ${v.head.slice(0, 8)} (${strategy}).` }));
  const push = () => run('push', () => api.call('worktrees.push', { path: info.path }), (v) => ({ ok: true, text: `Pushed ${visibleText(v.branch)} to ${visibleText(v.remote)}.`, url: v.compareUrl, output: v.output }));
  const pullRequest = () =>
    run('pr', () => api.call('worktrees.pullRequest', { path: info.path, title: prTitle.trim() || info.branch, body: prBody }), (v) =>
      v.via === 'gh'
        ? { ok: true, text: 'Pull request opened with gh.', url: v.url, output: v.output }
        : { ok: true, text: `Pushed (${v.reason}).${v.compareUrl ? ' Open the pull request from the remote’s link:' : ' The remote printed no link to open a pull request.'}`, url: v.compareUrl, output: v.output },
    );
  // The agent's draft fills the fields; the user edits it before sending.
  const draftPullRequest = () =>
    run('draft', () => api.call('worktrees.draftPullRequest', { path: info.path, sessionId }), (v) => {
      setPrTitle(v.title);
      setPrBody(v.body);
      return { ok: true, text: 'The agent drafted the pull request: edit it, then send it.' };
    });
  const discard = async () => {
    const answer = await confirmWorktreeDiscard(api, info);
    if (!answer) return;
    if ('error' in answer) return setNote({ ok: false, text: answer.error });
    await run('discard', () => api.call('worktrees.discard', { path: info.path, unmerged: answer.unmerged }), () => ({ ok: true, text: 'The worktree and its branch are removed.' }));
  };

  return (
    <div className="worktree-finish" data-testid="worktree-finish">
      <section>
        <h3>Commit</h3>
        {files.length === 0 ? (
          <p className="muted small">No uncommitted changes.</p>
        ) : (
          <ul className="worktree-files" data-testid="worktree-files">
            {files.map((f) => (
              <li key={f.path}>
                <label className="checkbox">
                  <input
                    type="checkbox"
                    checked={selected.has(f.path)}
                    onChange={(e) => {
                      const next = new Set(selected);
                      if (e.target.checked) next.add(f.path);
                      else next.delete(f.path);
                      setChosen(next);
                    }}
                  />
                  <code className="muted">{f.code}</code> <VisibleText text={f.path} />
                </label>
              </li>
            ))}
          </ul>
        )}
        <textarea rows={3} placeholder="Commit message" value={message} onChange={(e) => setMessage(e.target.value)} data-testid="worktree-commit-message" aria-label="Commit message" />
        <div className="form-actions">
          <button className="primary" disabled={!message.trim() || selected.size === 0 || busy !== null} onClick={() => void commit()} data-testid="worktree-commit">
            {busy === 'commit' ? 'Committing…' : 'Commit'}
          </button>
          <button
            disabled={!idle || files.length === 0}
            title={idle ? 'The agent replies with a message; copy it here' : 'The agent is busy'}
            onClick={() =>
              void prompt(
                `Draft a git commit message for the uncommitted changes in this worktree (${[...selected].join(', ')}). Reply with only the message: a summary line under 72 characters, a blank line, then what changed and why. Do not commit.`,
              )
            }
            data-testid="worktree-draft-message"
          >
            Draft with the agent
          </button>
        </div>
      </section>
      <section>
        <h3>Merge into <VisibleText text={info.base} /></h3>
        <div className="form-actions">
          <select value={strategy} onChange={(e) => setStrategy(e.target.value as MergeStrategy)} aria-label="Merge strategy" data-testid="worktree-strategy">
            {STRATEGIES.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
          <button className="primary" disabled={busy !== null || (status?.ahead ?? 0) === 0} onClick={() => void merge()} data-testid="worktree-merge">
            {busy === 'merge' ? 'Merging…' : 'Merge'}
          </button>
        </div>
        {conflict && (
          <div className="worktree-conflict" data-testid="worktree-conflict">
            <p>These files conflict with <VisibleText text={conflict.base} /> (nothing was changed):</p>
            <ul>
              {conflict.files.map((f) => (
                <li key={f}>
                  <code>
                    <VisibleText text={f} />
                  </code>{' '}
                  <button className="link-button" onClick={() => openFileTab(sessionId, `${info.path}/${f}`, null)}>
                    Open
                  </button>
                </li>
              ))}
            </ul>
            <button
              disabled={!idle}
              onClick={() =>
                void prompt(
                  `Merging this branch (${visibleText(conflict.branch)}) into ${visibleText(conflict.base)} conflicts in: ${conflict.files.join(', ')}. In this worktree, merge ${visibleText(conflict.base)} into ${visibleText(conflict.branch)} (git merge ${visibleText(conflict.base)}), resolve the conflicts in those files keeping both sides' intent, and commit the merge.`,
                )
              }
              data-testid="worktree-resolve"
            >
              Ask the agent to resolve these conflicts
            </button>
          </div>
        )}
      </section>
      <section>
        <h3>Share</h3>
        <div className="form-actions">
          <button disabled={busy !== null || (status?.ahead ?? 0) === 0} onClick={() => void push()} data-testid="worktree-push">
            {busy === 'push' ? 'Pushing…' : 'Push'}
          </button>
        </div>
        <input placeholder={`Pull request title (${info.branch})`} value={prTitle} onChange={(e) => setPrTitle(e.target.value)} aria-label="Pull request title" data-testid="worktree-pr-title" />
        <textarea rows={5} placeholder="Pull request description" value={prBody} onChange={(e) => setPrBody(e.target.value)} aria-label="Pull request description" data-testid="worktree-pr-body" />
        <div className="form-actions">
          <button disabled={busy !== null || (status?.ahead ?? 0) === 0} onClick={() => void pullRequest()} data-testid="worktree-pr">
            {busy === 'pr' ? 'Opening…' : 'Pull request'}
          </button>
          <button
            disabled={busy !== null || !idle || (status?.ahead ?? 0) === 0}
            title={idle ? 'The agent is asked in this session for a title and a description' : 'The agent is busy'}
            onClick={() =>
              void (async () => {
                const typed = prTitle.trim() || prBody.trim();
                if (typed && !(await confirmDialog({ title: 'Ask the agent for a draft?', message: 'Its draft replaces the title and description typed here.', confirm: 'Ask the agent' }))) return;
                await draftPullRequest();
              })()
            }
            data-testid="worktree-pr-draft"
          >
            {busy === 'draft' ? 'The agent is drafting…' : 'Draft with the agent'}
          </button>
        </div>
      </section>
      <section>
        <h3>Discard</h3>
        <button className="danger" disabled={busy !== null} onClick={() => void discard()} data-testid="worktree-discard">
          Discard worktree and branch…
        </button>
      </section>
      {note && (
        <div className={`worktree-note ${note.ok ? 'ok' : 'error'}`} role={note.ok ? 'status' : 'alert'} data-testid="worktree-note">
          {note.text}{' '}
          {note.url && (
            <button className="link-button" onClick={() => void openExternalLink(api, note.url!)}>
              {note.url}
            </button>
          )}
          {note.output && (
            <details>
              <summary>Output</summary>
              <pre>{note.output}</pre>
            </details>
          )}
        </div>
      )}
    </div>
  );
}
