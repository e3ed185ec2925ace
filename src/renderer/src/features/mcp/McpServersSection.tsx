import { useCallback, useEffect, useState } from 'react';
import { CircleCheck, CircleX, FileInput, LoaderCircle, Pencil, Plus, Trash2, X } from 'lucide-react';
import type { McpAgentView, McpCheckResult, McpImportPreview, McpPairInput, McpServerInput, McpServerView } from '@shared/contract/mcp';
import { useApi, useEvent } from '../../app/api-context';
import { VisibleText } from '../../ui/VisibleText';
import { FormActions } from '../../ui/FormActions';

type Kind = 'stdio' | 'http' | 'sse';

/** A pair being edited: a secret that is stored keeps `value` empty and `stored` true until retyped. */
interface PairDraft {
  name: string;
  value: string;
  secret: boolean;
  stored: boolean;
}

interface Draft {
  type: Kind;
  name: string;
  command: string;
  args: string;
  url: string;
  pairs: PairDraft[];
  enabled: boolean;
  agents: 'all' | string[];
}

const SECRET_NAME = /(key|token|secret|passw(or)?d|credential|auth|cookie)$|^authorization$/i;

const emptyDraft = (): Draft => ({ type: 'stdio', name: '', command: '', args: '', url: '', pairs: [], enabled: true, agents: 'all' });

const draftOf = (s: McpServerView): Draft => ({
  type: s.type,
  name: s.name,
  command: s.type === 'stdio' ? s.command : '',
  args: s.type === 'stdio' ? s.args.join('\n') : '',
  url: s.type === 'stdio' ? '' : s.url,
  pairs: (s.type === 'stdio' ? s.env : s.headers).map((p) => ({ name: p.name, value: p.value ?? '', secret: p.secret, stored: p.secret && p.value === null })),
  enabled: s.enabled,
  agents: s.agents,
});

const pairInputs = (pairs: PairDraft[]): McpPairInput[] =>
  pairs
    .filter((p) => p.name.trim() !== '')
    .map((p) => (p.secret && p.stored && p.value === '' ? { name: p.name.trim(), secret: true } : { name: p.name.trim(), value: p.value, secret: p.secret }));

const inputOf = (d: Draft): McpServerInput =>
  d.type === 'stdio'
    ? {
        type: 'stdio',
        name: d.name.trim(),
        command: d.command.trim(),
        args: d.args.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== ''),
        env: pairInputs(d.pairs),
        enabled: d.enabled,
        agents: d.agents,
      }
    : { type: d.type, name: d.name.trim(), url: d.url.trim(), headers: pairInputs(d.pairs), enabled: d.enabled, agents: d.agents };

/** The input that stores a server as it is (secrets kept), with some fields changed. */
const asInput = (s: McpServerView, patch: Partial<Pick<Draft, 'enabled' | 'agents'>>): McpServerInput => inputOf({ ...draftOf(s), ...patch });

/** Why an agent does not get a server, or null when it does. */
function skippedFor(s: McpServerView, a: McpAgentView): string | null {
  if (!s.enabled) return 'disabled';
  if (s.agents !== 'all' && !s.agents.includes(a.id)) return null;
  if (s.type === 'stdio') return null;
  if (a.transports === null) return `not known yet whether it supports MCP over ${s.type} (start it once)`;
  return a.transports[s.type] ? null : `does not support MCP over ${s.type}: skipped`;
}

const targetOf = (s: McpServerView): string => (s.type === 'stdio' ? [s.command, ...s.args].join(' ') : s.url);

/**
 * MCP servers: add, edit, remove, enable; which agents get each; check one (its tool count); import from a
 * project's .mcp.json or a desktop tool's config. Self-contained: a settings screen or a tab can host it.
 */
export function McpServersSection() {
  const api = useApi();
  const [servers, setServers] = useState<McpServerView[]>([]);
  const [agents, setAgents] = useState<McpAgentView[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ id: string | null; draft: Draft } | null>(null);
  const [checks, setChecks] = useState<Record<string, McpCheckResult | 'running'>>({});

  const reload = useCallback(async () => {
    const r = await api.call('mcp.list', {});
    if (!r.ok) return setError(r.error.message);
    setServers(r.value.servers);
    setAgents(r.value.agents);
  }, [api]);
  useEffect(() => void reload(), [reload]);
  // Agents start and stop: what they support becomes known.
  useEvent('agent.status', () => void reload(), [reload]);
  // Another window (or this one) changed the servers.
  useEvent('mcp.changed', () => void reload(), [reload]);

  const save = async (id: string | null, input: McpServerInput): Promise<boolean> => {
    const r = id === null ? await api.call('mcp.add', { server: input }) : await api.call('mcp.update', { id, server: input });
    if (!r.ok) {
      setError(r.error.issues?.length ? `${r.error.message}: ${r.error.issues.map((i) => `${i.path} ${i.message}`).join('; ')}` : r.error.message);
      return false;
    }
    setError(null);
    await reload();
    return true;
  };

  /** A quick change (enabled, agents): shown at once, then stored; a refusal reloads what is stored. */
  const patch = (s: McpServerView, change: Partial<Pick<Draft, 'enabled' | 'agents'>>) => {
    setServers((list) => list.map((x) => (x.id === s.id ? { ...x, ...change } : x)));
    void save(s.id, asInput(s, change)).then((saved) => {
      if (!saved) void reload();
    });
  };

  const remove = async (s: McpServerView) => {
    if (!window.confirm(`Remove the MCP server "${s.name}"?`)) return;
    const r = await api.call('mcp.remove', { id: s.id });
    if (!r.ok) setError(r.error.message);
    await reload();
  };

  const check = async (s: McpServerView) => {
    setChecks((c) => ({ ...c, [s.id]: 'running' }));
    const r = await api.call('mcp.check', { id: s.id });
    setChecks((c) => ({ ...c, [s.id]: r.ok ? r.value : { ok: false, error: r.error.message, ms: 0 } }));
  };

  return (
    <section className="mcp-section" data-testid="mcp-section" aria-label="MCP servers">
      <p className="muted small">
        MCP servers are given to agents when a session starts. stdio servers go to every agent chosen; http and sse servers only to agents that
        advertise them. Values marked secret are stored encrypted.
      </p>
      {error && (
        <p className="error" role="alert" data-testid="mcp-error">
          {error}
        </p>
      )}
      <ul className="mcp-list">
        {servers.map((s) => {
          const result = checks[s.id];
          const skipped = agents.map((a) => ({ a, why: skippedFor(s, a) })).filter((x) => x.why !== null && x.why !== 'disabled');
          return (
            <li key={s.id} className="mcp-row" data-testid="mcp-server-row" data-name={s.name}>
              <div className="mcp-line">
                <label className="mcp-enabled" title={s.enabled ? 'Enabled' : 'Disabled'}>
                  <input type="checkbox" checked={s.enabled} data-testid="mcp-enabled" onChange={(e) => patch(s, { enabled: e.target.checked })} />
                </label>
                <strong className="mcp-name">{s.name}</strong>
                <span className="tag">{s.type}</span>
                <code className="mcp-target" title={targetOf(s)}>
                  {targetOf(s)}
                </code>
                <span className="spacer" />
                <button onClick={() => void check(s)} disabled={result === 'running'} data-testid="mcp-check">
                  Check
                </button>
                <button className="icon" title="Edit" aria-label={`Edit ${s.name}`} onClick={() => setEditing({ id: s.id, draft: draftOf(s) })} data-testid="mcp-edit">
                  <Pencil size={14} />
                </button>
                <button className="icon" title="Remove" aria-label={`Remove ${s.name}`} onClick={() => void remove(s)} data-testid="mcp-remove">
                  <Trash2 size={14} />
                </button>
              </div>
              {result && (
                <div className="mcp-check-result small" data-testid="mcp-check-result">
                  {result === 'running' ? (
                    <>
                      <LoaderCircle size={12} className="spin" /> Checking…
                    </>
                  ) : result.ok ? (
                    <span className="ok" title={result.tools.join(', ')}>
                      <CircleCheck size={12} /> {result.tools.length} tool{result.tools.length === 1 ? '' : 's'}
                      {result.serverName ? ` (${result.serverName})` : ''}
                    </span>
                  ) : (
                    <span className="error mcp-check-error">
                      <CircleX size={12} /> {result.error}
                    </span>
                  )}
                </div>
              )}
              <AgentChoice server={s} agents={agents} onChange={(choice) => patch(s, { agents: choice })} />
              {skipped.length > 0 && (
                <ul className="mcp-skipped small" data-testid="mcp-skipped">
                  {skipped.map(({ a, why }) => (
                    <li key={a.id}>
                      {a.name}: {why}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
        {servers.length === 0 && <li className="muted small">No MCP servers yet.</li>}
      </ul>
      <FormActions>
        <button onClick={() => setEditing({ id: null, draft: emptyDraft() })} data-testid="mcp-add">
          <Plus size={14} /> Add server
        </button>
      </FormActions>
      {editing && (
        <ServerForm
          key={editing.id ?? 'new'}
          initial={editing.draft}
          isNew={editing.id === null}
          onCancel={() => setEditing(null)}
          onSave={async (d) => {
            if (await save(editing.id, inputOf(d))) setEditing(null);
          }}
        />
      )}
      <ImportPanel onImported={() => void reload()} />
    </section>
  );
}

/** All agents, or only some: a server's audience. */
function AgentChoice({ server, agents, onChange }: { server: McpServerView; agents: McpAgentView[]; onChange(choice: 'all' | string[]): void }) {
  const only = server.agents !== 'all';
  const chosen = new Set(server.agents === 'all' ? [] : server.agents);
  return (
    <div className="mcp-agents small" data-testid="mcp-agents">
      <label>
        <input type="radio" checked={!only} onChange={() => onChange('all')} data-testid="mcp-agents-all" /> All agents
      </label>
      <label>
        <input type="radio" checked={only} onChange={() => onChange([])} data-testid="mcp-agents-only" /> Only:
      </label>
      {only &&
        agents.map((a) => (
          <label key={a.id} className="mcp-agent">
            <input
              type="checkbox"
              aria-label={`Give ${server.name} to ${a.name}`}
              checked={chosen.has(a.id)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, a.id] : [...chosen].filter((id) => id !== a.id))}
            />{' '}
            {a.name}
          </label>
        ))}
      {only && agents.length === 0 && <span className="muted">no agents yet</span>}
    </div>
  );
}

function ServerForm({ initial, isNew, onSave, onCancel }: { initial: Draft; isNew: boolean; onSave(d: Draft): Promise<void>; onCancel(): void }) {
  const [d, setD] = useState<Draft>(initial);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const setPair = (i: number, patch: Partial<PairDraft>) => set({ pairs: d.pairs.map((p, j) => (j === i ? { ...p, ...patch } : p)) });
  const pairLabel = d.type === 'stdio' ? 'Environment' : 'Headers';
  return (
    <form
      className="mcp-form"
      data-testid="mcp-form"
      aria-label={isNew ? 'Add MCP server' : 'Edit MCP server'}
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        void onSave(d).finally(() => setBusy(false));
      }}
    >
      <div className="mcp-form-row">
        <label className="field">
          <span>Name</span>
          <input value={d.name} onChange={(e) => set({ name: e.target.value })} data-testid="mcp-name" required />
        </label>
        <label className="field mcp-type">
          <span>Transport</span>
          <select value={d.type} onChange={(e) => set({ type: e.target.value as Kind })} data-testid="mcp-type">
            <option value="stdio">stdio (a command)</option>
            <option value="http">http (streamable)</option>
            <option value="sse">sse</option>
          </select>
        </label>
      </div>
      {d.type === 'stdio' ? (
        <>
          <label className="field">
            <span>Command</span>
            <input value={d.command} onChange={(e) => set({ command: e.target.value })} data-testid="mcp-command" placeholder="npx" required />
          </label>
          <label className="field">
            <span>Arguments (one per line)</span>
            <textarea rows={3} value={d.args} onChange={(e) => set({ args: e.target.value })} data-testid="mcp-args" />
          </label>
        </>
      ) : (
        <label className="field">
          <span>URL</span>
          <input value={d.url} onChange={(e) => set({ url: e.target.value })} data-testid="mcp-url" placeholder="https://…" required />
        </label>
      )}
      <div className="field">
        <span>{pairLabel}</span>
        {d.pairs.map((p, i) => (
          <div key={i} className="mcp-pair" data-testid="mcp-pair">
            <input
              aria-label={`${pairLabel} name`}
              value={p.name}
              onChange={(e) => setPair(i, { name: e.target.value, ...(p.value === '' && !p.stored ? { secret: SECRET_NAME.test(e.target.value) } : {}) })}
              placeholder="NAME"
            />
            <input
              aria-label={`${pairLabel} value`}
              type={p.secret ? 'password' : 'text'}
              value={p.value}
              placeholder={p.stored ? '(stored; type to replace)' : 'value'}
              onChange={(e) => setPair(i, { value: e.target.value })}
            />
            <label className="small" title="Stored encrypted; never shown again">
              <input type="checkbox" checked={p.secret} onChange={(e) => setPair(i, { secret: e.target.checked, stored: false })} /> secret
            </label>
            <button type="button" className="icon" aria-label="Remove" onClick={() => set({ pairs: d.pairs.filter((_, j) => j !== i) })}>
              <X size={14} />
            </button>
          </div>
        ))}
        <button type="button" className="link-button" onClick={() => set({ pairs: [...d.pairs, { name: '', value: '', secret: false, stored: false }] })} data-testid="mcp-pair-add">
          <Plus size={12} /> Add {d.type === 'stdio' ? 'variable' : 'header'}
        </button>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={d.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> Enabled
      </label>
      <FormActions>
        <button type="submit" className="primary" disabled={busy} data-testid="mcp-save">
          {isNew ? 'Add' : 'Save'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </FormActions>
    </form>
  );
}

/** Variables that make a program load or run other code: shown first, flagged. */
const RUNS_CODE = /^(NODE_OPTIONS|NODE_PATH|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_\w+|PATH|BASH_ENV|ENV|ZDOTDIR|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|GIT_SSH_COMMAND|GIT_EXEC_PATH|npm_config_\w+|ELECTRON_RUN_AS_NODE)$/i;

/**
 * Everything an imported entry will run with, as stored: the command and each argument apart (a space or
 * a newline inside one shows), every variable or header with its value (secret-looking ones masked, their
 * names shown), hidden characters marked.
 */
function WhatRuns({ server }: { server: McpServerView }) {
  const pairs = server.type === 'stdio' ? server.env : server.headers;
  return (
    <div className="small mcp-what-runs" data-testid="mcp-import-runs">
      {server.type === 'stdio' ? (
        <div className="mcp-argv" data-testid="mcp-import-argv">
          {[server.command, ...server.args].map((a, i) => (
            <code key={i} className="mcp-arg">
              <VisibleText text={a} />
            </code>
          ))}
        </div>
      ) : (
        <code data-testid="mcp-import-url">
          <VisibleText text={server.url} />
        </code>
      )}
      {pairs.length > 0 && (
        <ul className="mcp-pairs">
          {pairs.map((p) => {
            const risky = server.type === 'stdio' && RUNS_CODE.test(p.name);
            return (
              <li key={p.name} data-testid="mcp-import-pair" data-name={p.name} data-runs-code={risky || undefined}>
                <code>
                  <VisibleText text={p.name} />={p.secret || p.value === null ? <span className="muted">•••••• (secret, not shown)</span> : <VisibleText text={p.value} />}
                </code>
                {risky && <span className="tag warning"> makes the program load other code</span>}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/** Import from a file or a project folder: a preview first, then the entries the user keeps ticked. */
function ImportPanel({ onImported }: { onImported(): void }) {
  const api = useApi();
  const [path, setPath] = useState('');
  const [sources, setSources] = useState<Array<{ label: string; path: string }>>([]);
  const [preview, setPreview] = useState<McpImportPreview | null>(null);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);

  useEffect(() => {
    void api.call('mcp.importSources', {}).then((r) => r.ok && setSources(r.value.sources.filter((s) => s.exists)));
  }, [api]);

  const load = async (p: string) => {
    setPath(p);
    setMessage(null);
    const r = await api.call('mcp.importPreview', { path: p.trim() });
    if (!r.ok) {
      setPreview(null);
      return setMessage({ error: true, text: r.error.message });
    }
    setPreview(r.value);
    setPicked(new Set(r.value.entries.filter((e) => e.action !== 'invalid').map((e) => e.name)));
  };

  const apply = async () => {
    if (!preview) return;
    const r = await api.call('mcp.importApply', { path: preview.path, digest: preview.digest, names: [...picked] });
    if (!r.ok) return setMessage({ error: true, text: r.error.message });
    setPreview(null);
    setMessage({ error: false, text: `Imported ${r.value.imported.length}: ${r.value.imported.join(', ')}` });
    onImported();
  };

  return (
    <div className="mcp-import" data-testid="mcp-import">
      <h4>
        <FileInput size={14} /> Import
      </h4>
      <form
        className="mcp-import-form"
        onSubmit={(e) => {
          e.preventDefault();
          void load(path);
        }}
      >
        <input
          value={path}
          onChange={(e) => setPath(e.target.value)}
          placeholder="A config file (mcpServers JSON) or a project folder with .mcp.json"
          aria-label="Config file or project folder"
          data-testid="mcp-import-path"
        />
        <button type="submit" disabled={!path.trim()} data-testid="mcp-import-preview">
          Preview
        </button>
      </form>
      {sources.length > 0 && (
        <div className="small mcp-import-sources">
          Found:{' '}
          {sources.map((s) => (
            <button key={s.path} className="link-button" title={s.path} onClick={() => void load(s.path)}>
              {s.label}
            </button>
          ))}
        </div>
      )}
      {message && <p className={message.error ? 'error small' : 'ok small'} role={message.error ? 'alert' : 'status'} data-testid="mcp-import-message">{message.text}</p>}
      {preview && (
        <div className="mcp-preview" data-testid="mcp-import-preview-list">
          <div className="small muted"><VisibleText text={preview.path} /></div>
          <ul>
            {preview.entries.map((e) => (
              <li key={e.name} data-testid="mcp-import-entry" data-name={e.name}>
                <label>
                  <input
                    type="checkbox"
                    disabled={e.action === 'invalid'}
                    checked={picked.has(e.name)}
                    onChange={(ev) => setPicked((p) => (ev.target.checked ? new Set([...p, e.name]) : new Set([...p].filter((n) => n !== e.name))))}
                  />{' '}
                  <strong>
                    <VisibleText text={e.name} />
                  </strong>{' '}
                  <span className="tag">{e.server?.type ?? '?'}</span> <span className={`tag ${e.action === 'new' ? 'new' : ''}`}>{e.action === 'replace' ? 'replaces existing' : e.action}</span>
                </label>
                {e.server && <WhatRuns server={e.server} />}
                {e.problem && <div className="small error">{e.problem}</div>}
              </li>
            ))}
          </ul>
          <FormActions>
            <button className="primary" disabled={picked.size === 0} onClick={() => void apply()} data-testid="mcp-import-apply">
              Import {picked.size}
            </button>
            <button onClick={() => setPreview(null)}>Cancel</button>
          </FormActions>
        </div>
      )}
    </div>
  );
}
