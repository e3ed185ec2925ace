import { useCallback, useEffect, useRef, useState } from 'react';
import { TOOL_KINDS, type AgentRuleFile, type PermissionRule } from '@shared/contract/permissions';
import { describeScope, patternText, scopeProblem, type RuleMatch, type RuleScope, type RuleSubject } from '@shared/permission-scope';
import { useApi, useEvent } from '../../../app/api-context';
import { SectionFields } from './GenericSection';
import { useTabs } from '../../../state/tabs';
import { agentName, syncAgents, useAgents } from '../../agents';
import { usePermissionFocus } from '../state';
import { ErrorAlert } from '../../../ui/Alert';
import { AgentSelect } from '../../../ui/Select';
import { VisibleText } from '../../../ui/VisibleText';

type Decision = PermissionRule['decision'];
type ToolKind = (typeof TOOL_KINDS)[number];

interface Draft {
  id?: number;
  agentId: string;
  toolKind: ToolKind;
  subject: RuleSubject;
  match: RuleMatch;
  pattern: string;
  folder: string;
  sessionId: string;
  decision: Decision;
}

const MATCHES: Record<RuleSubject, RuleMatch[]> = { command: ['prefix', 'exact'], path: ['glob', 'exact'], title: ['exact'] };
const MATCH_TEXT: Record<RuleMatch, string> = { exact: 'exactly', prefix: 'starting with', glob: 'matching the glob' };
const SUBJECT_TEXT: Record<RuleSubject, string> = { command: 'command', path: 'path', title: 'title' };

const draftScope = (d: Draft): RuleScope => ({ subject: d.subject, match: d.match, pattern: d.pattern.trim(), folder: d.folder.trim(), sessionId: d.sessionId.trim() || null });
const asKind = (k: string): ToolKind => (TOOL_KINDS as readonly string[]).includes(k) ? (k as ToolKind) : 'other';

/**
 * Every permission rule of every agent, each part of its scope shown and editable; the rule files that agents
 * keep themselves (whose answers never reach Switchboard), for the folders of the open sessions.
 */
export function PermissionsSection() {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const [rules, setRules] = useState<PermissionRule[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Draft | null>(null);
  const focus = usePermissionFocus();
  // A new rule's folder: that of an open session, to start from.
  const openFolder = useAgents((s) => Object.values(s.sessions)[0]?.cwd ?? '');
  const table = useRef<HTMLTableElement>(null);
  const load = useCallback(() => {
    void api.call('permissionRules.list', {}).then((r) => {
      if (r.ok) setRules(r.value.rules);
      setLoaded(true);
    });
  }, [api]);
  useEffect(() => syncAgents(api), [api]);
  useEffect(load, [load]);
  useEvent('session.permissionResolved', load, [load]);
  useEffect(() => {
    if (focus.ruleId === null) return;
    load();
    const t = setTimeout(() => table.current?.querySelector(`[data-rule-id="${focus.ruleId}"]`)?.scrollIntoView({ block: 'center' }), 50);
    return () => clearTimeout(t);
  }, [focus.ruleId, focus.nonce, load]);

  const save = async (d: Draft): Promise<boolean> => {
    const r = await api.call('permissionRules.set', { ...(d.id !== undefined ? { id: d.id } : {}), agentId: d.agentId, toolKind: d.toolKind, decision: d.decision, scope: draftScope(d) });
    setError(r.ok ? null : r.error.message);
    load();
    return r.ok;
  };
  const remove = async (id: number) => {
    const r = await api.call('permissionRules.remove', { id });
    setError(r.ok ? null : r.error.message);
    load();
  };
  const nameOf = (agentId: string) => agentName(agents, agentId);
  const draftOf = (r: PermissionRule): Draft => ({
    id: r.id,
    agentId: r.agentId,
    toolKind: asKind(r.toolKind),
    subject: r.scope?.subject ?? (r.toolKind === 'execute' ? 'command' : 'path'),
    match: r.scope?.match ?? (r.toolKind === 'execute' ? 'prefix' : 'glob'),
    pattern: r.scope?.pattern ?? '',
    folder: r.scope?.folder ?? '',
    sessionId: r.scope?.sessionId ?? '',
    decision: r.decision,
  });

  return (
    <div className="settings-permissions">
      <p className="muted small">
        An agent asks before it runs a tool, unless a rule answers for it. A rule answers one agent, one tool kind, requests whose command, path or title
        fits its pattern, in one project folder (and, if set, one session). It answers with the agent’s “once” option, so the agent remembers nothing more.
      </p>
      <SectionFields section="permissions" />
      {focus.ruleId !== null && loaded && !rules.some((r) => r.id === focus.ruleId) && (
        <p className="muted small" data-testid="permission-rule-gone">
          The rule that answered there has since been forgotten.
        </p>
      )}
      {rules.length === 0 ? (
        <p className="muted small" data-testid="permission-rules-empty">
          No rules in Switchboard: every agent asks, unless it answers itself from its own rule files (below).
        </p>
      ) : (
        <table className="settings-table" data-testid="settings-permission-rules" ref={table}>
          <thead>
            <tr>
              <th>Agent</th>
              <th>Tool kind</th>
              <th>Pattern</th>
              <th>Folder</th>
              <th>Session</th>
              <th>Answer</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr
                key={r.id}
                data-testid="settings-permission-rule"
                data-rule-id={r.id}
                data-agent-id={r.agentId}
                data-tool-kind={r.toolKind}
                className={`${focus.ruleId === r.id ? 'focused' : ''}${r.scope ? '' : ' needs-review'}`}
                aria-current={focus.ruleId === r.id ? 'true' : undefined}
              >
                <td>{nameOf(r.agentId)}</td>
                <td>
                  <code>{r.toolKind}</code>
                </td>
                {r.scope ? (
                  <>
                    <td data-testid="rule-pattern-text" title={r.label ? `Made by the answer “${r.label}”` : undefined}>
                      {SUBJECT_TEXT[r.scope.subject]} {MATCH_TEXT[r.scope.match]} <code>{patternText(r.scope)}</code>
                    </td>
                    <td>
                      <code title={r.scope.folder}>
                        <VisibleText text={r.scope.folder} />
                      </code>
                    </td>
                    <td>{r.scope.sessionId ? <code title={r.scope.sessionId}>{r.scope.sessionId.slice(0, 8)}</code> : <span className="muted">any</span>}</td>
                  </>
                ) : (
                  <td colSpan={3} className="warning small" data-testid="rule-needs-review">
                    Applies to every {r.toolKind} request in every project — review. It answers nothing until you give it a scope (Edit) or forget it.
                  </td>
                )}
                <td>
                  <select
                    aria-label={`Answer for ${r.toolKind}`}
                    value={r.decision}
                    disabled={!r.scope}
                    onChange={(e) => void save({ ...draftOf(r), decision: e.target.value as Decision })}
                    data-testid="rule-decision"
                  >
                    <option value="allow">allow</option>
                    <option value="reject">reject</option>
                  </select>
                </td>
                <td className="row-actions">
                  <button className="small" onClick={() => setEditing(draftOf(r))} data-testid="rule-edit">
                    Edit
                  </button>
                  <button className="small" onClick={() => void remove(r.id)} data-testid="rule-remove">
                    Forget
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && (
        <RuleEditor
          key={editing.id ?? 'new'}
          title={`Edit the rule of ${nameOf(editing.agentId)}`}
          initial={editing}
          agents={agents.map((a) => ({ id: a.id, name: a.name }))}
          submitText="Save"
          onCancel={() => setEditing(null)}
          onSubmit={async (d) => (await save(d)) && setEditing(null)}
        />
      )}
      {agents.length > 0 && !editing && (
        <RuleEditor
          title="Add a rule"
          key={openFolder}
          initial={{ agentId: agents[0]!.id, toolKind: 'execute', subject: 'command', match: 'prefix', pattern: '', folder: openFolder, sessionId: '', decision: 'allow' }}
          agents={agents.map((a) => ({ id: a.id, name: a.name }))}
          submitText="Add"
          onSubmit={async (d) => void (await save(d))}
        />
      )}
      {error && (
        <ErrorAlert testId="permission-rule-error">{error}</ErrorAlert>
      )}
      <AgentRuleFiles />
    </div>
  );
}

function RuleEditor({
  title,
  initial,
  agents,
  submitText,
  onSubmit,
  onCancel,
}: {
  title: string;
  initial: Draft;
  agents: Array<{ id: string; name: string }>;
  submitText: string;
  onSubmit(d: Draft): Promise<unknown>;
  onCancel?: () => void;
}) {
  const [d, setD] = useState<Draft>(initial);
  const set = (patch: Partial<Draft>) => setD((prev) => ({ ...prev, ...patch }));
  const problem = d.pattern.trim() && d.folder.trim() ? scopeProblem(draftScope(d)) : null;
  const preview = d.pattern.trim() && d.folder.trim() && !problem ? describeScope(d.toolKind, draftScope(d)) : null;
  return (
    <form
      className="settings-inline-form rule-editor"
      data-testid={initial.id !== undefined ? 'edit-permission-rule' : 'add-permission-rule'}
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit({ ...d, agentId: agents.some((a) => a.id === d.agentId) ? d.agentId : agents[0]!.id });
      }}
    >
      <span className="small"><VisibleText text={title} />:</span>
      <AgentSelect agents={agents} aria-label="Agent" value={d.agentId} onChange={(agentId) => set({ agentId })} data-testid="rule-agent" />
      <select aria-label="Tool kind" value={d.toolKind} onChange={(e) => set({ toolKind: e.target.value as ToolKind })} data-testid="rule-tool-kind">
        {TOOL_KINDS.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
      </select>
      <select aria-label="What the pattern matches" value={d.subject} onChange={(e) => set({ subject: e.target.value as RuleSubject, match: MATCHES[e.target.value as RuleSubject][0]! })} data-testid="rule-subject">
        <option value="command">command</option>
        <option value="path">path</option>
        <option value="title">title</option>
      </select>
      <select aria-label="How it matches" value={d.match} onChange={(e) => set({ match: e.target.value as RuleMatch })} data-testid="rule-match">
        {MATCHES[d.subject].map((m) => (
          <option key={m} value={m}>
            {MATCH_TEXT[m]}
          </option>
        ))}
      </select>
      <input
        aria-label="Pattern"
        placeholder={d.subject === 'command' ? (d.match === 'prefix' ? 'echo' : 'npm test') : d.subject === 'path' ? '/project/src/**' : 'the tool call’s title'}
        value={d.pattern}
        onChange={(e) => set({ pattern: e.target.value })}
        data-testid="rule-pattern"
      />
      <input aria-label="Project folder" placeholder="/path/to/project" value={d.folder} onChange={(e) => set({ folder: e.target.value })} data-testid="rule-folder" />
      <input aria-label="Session (empty: any)" placeholder="any session" value={d.sessionId} onChange={(e) => set({ sessionId: e.target.value })} data-testid="rule-session" />
      <select aria-label="Answer" value={d.decision} onChange={(e) => set({ decision: e.target.value as Decision })} data-testid="rule-new-decision">
        <option value="allow">allow</option>
        <option value="reject">reject</option>
      </select>
      <button type="submit" data-testid="rule-add" disabled={!d.pattern.trim() || !d.folder.trim() || problem !== null}>
        {submitText}
      </button>
      {onCancel && (
        <button type="button" onClick={onCancel} data-testid="rule-cancel">
          Cancel
        </button>
      )}
      {problem && (
        <span className="error small" data-testid="rule-problem">
          {problem}
        </span>
      )}
      {preview && (
        <span className="muted small" data-testid="rule-preview">
          {d.decision === 'allow' ? 'Allows' : 'Rejects'}: {preview}
        </span>
      )}
    </form>
  );
}

/** The rule files the agents of the open sessions read for their folders: their answers never reach Switchboard. */
function AgentRuleFiles() {
  const api = useApi();
  const [files, setFiles] = useState<AgentRuleFile[] | null>(null);
  const load = useCallback(() => {
    void api.call('permissionRules.agentFiles', {}).then((r) => setFiles(r.ok ? r.value.files : []));
  }, [api]);
  // Looked up again when the set of open sessions' folders changes.
  const folders = useAgents((s) => [...new Set(Object.values(s.sessions).map((x) => x.cwd))].sort().join('\n'));
  useEffect(load, [load, folders]);
  const open = (f: AgentRuleFile) =>
    useTabs.getState().open({ id: `agent-rules:${f.path}`, kind: 'session-file', title: f.path.split('/').slice(-2).join('/'), props: { sessionId: '', path: f.path, line: null, agentRules: true } });
  return (
    <div className="agent-rule-files" data-testid="agent-rule-files">
      <div className="auth-title">Rules the agents keep themselves</div>
      <p className="muted small">
        Claude, Qwen and Gemini approve (or deny) requests themselves from these files: those answers never reach Switchboard, so you are not asked and no
        rule above changes them. Edit or empty a file to make its agent ask again.
      </p>
      {files === null ? null : files.length === 0 ? (
        <p className="muted small" data-testid="agent-rule-files-empty">
          No agent of an open session keeps a rule file for its folder.
        </p>
      ) : (
        <ul>
          {files.map((f) => (
            <li key={`${f.agentId}:${f.path}`} data-testid="agent-rule-file">
              <VisibleText text={f.agentName} /> ({f.level === 'project' ? `in ${f.folder.split('/').pop()}` : 'its user settings'}):{' '}
              <button className="link-button" onClick={() => open(f)} title={`Open ${f.path}`} data-testid="agent-rule-file-open">
                <VisibleText text={f.path} />
              </button>{' '}
              <span className="muted small">{f.entries === null ? '(not readable as JSON)' : `${f.entries} ${f.entries === 1 ? 'entry' : 'entries'}`}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
