import { X } from 'lucide-react';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import type { DistKind, InstalledAgent, RegistryEntry, RuntimeCheck } from '@shared/contract/registry';
import { useApi } from '../../app/api-context';
import { openExternalLink } from '../../app/link-confirm';
import { useTabs } from '../../state/tabs';
import { Modal } from '../../ui/Modal';
import { NewSessionForm, refreshAgents } from '../agents';
import {
  KIND_TEXT,
  KIND_TITLE,
  commandLine,
  describeProgress,
  envToText,
  isHttpUrl,
  isTerminal,
  parseArgsText,
  parseEnvText,
} from './format';
import { RegistryIcon } from './Icon';
import {
  cancelInstall,
  dismissFailure,
  dismissNote,
  install,
  recheckRuntime,
  rollback,
  setOverrides,
  uninstall,
  update,
  useRegistry,
  type Failure,
} from './state';

const KIND_ORDER: DistKind[] = ['binary', 'npx', 'uvx'];

/** Text with its http(s) links opened in the system browser. */
function Linkified({ text }: { text: string }) {
  const api = useApi();
  const parts = text.split(/(https?:\/\/[^\s)`'"]+[^\s)`'".,;:])/g);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <a key={i} href={p} onClick={(e) => (e.preventDefault(), void openExternalLink(api, p))}>
            {p}
          </a>
        ) : (
          p
        ),
      )}
    </>
  );
}

function RuntimeHelp({ registryId, check }: { registryId: string; check: RuntimeCheck }) {
  const api = useApi();
  const [checking, setChecking] = useState(false);
  const missing = check.tools.filter((t) => !t.found);
  return (
    <div className="reg-runtime" data-testid="entry-runtime">
      <strong>What this machine needs</strong>
      <ul>
        {missing.map((t) => (
          <li key={t.name} data-testid="runtime-missing" data-tool={t.name}>
            <code>{t.name}</code> was not found{t.path ? ` (${t.path} did not work)` : ''}. {t.fix && <Linkified text={t.fix} />}
          </li>
        ))}
        {missing.length === 0 && check.problems.map((p) => <li key={p}>{p}</li>)}
      </ul>
      <button
        disabled={checking}
        onClick={() => {
          setChecking(true);
          void recheckRuntime(api, registryId).finally(() => setChecking(false));
        }}
        data-testid="runtime-recheck"
      >
        {checking ? 'Checking…' : 'Check again'}
      </button>
    </div>
  );
}

const FAILURE_TITLE: Record<Failure['operation'], string> = {
  install: 'Installation failed',
  update: 'Update failed',
  rollback: 'Rollback failed',
  uninstall: 'Uninstall failed',
  overrides: 'Saving the settings failed',
  cancel: 'Cancelling failed',
};

function FailureBox({ entry, failure }: { entry: RegistryEntry; failure: Failure }) {
  const api = useApi();
  const retry = failure.operation === 'install' || failure.operation === 'update';
  // The advice on how to get a missing tool is shown below, with links: not twice.
  let message = failure.message;
  for (const t of failure.runtime?.tools ?? []) if (t.fix && !t.found) message = message.replace(t.fix, '').trim();
  return (
    <div className="reg-failure" role="alert" data-testid="entry-error" data-code={failure.code}>
      <div>
        <strong>{FAILURE_TITLE[failure.operation]}:</strong> <span data-testid="entry-error-message">{message}</span>
      </div>
      {failure.runtime && <RuntimeHelp registryId={entry.id} check={failure.runtime} />}
      <div className="reg-actions">
        {retry && (
          <button
            className="primary"
            onClick={() => void (failure.operation === 'update' ? update(api, entry.id) : install(api, entry.id, failure.kind))}
            data-testid="entry-retry"
          >
            Retry
          </button>
        )}
        <button onClick={() => dismissFailure(entry.id)}>Dismiss</button>
      </div>
    </div>
  );
}

/** The registry's own arguments of an install (without the script path node is given first). */
const registryArgsOf = (inst: InstalledAgent): string[] => {
  if (inst.overrides.args !== null) return inst.overrides.args;
  return inst.kind === 'npx' ? inst.args.slice(1) : inst.args;
};

function OverridesForm({ inst, onDone }: { inst: InstalledAgent; onDone(): void }) {
  const api = useApi();
  const [replace, setReplace] = useState(inst.overrides.args !== null);
  const [argsText, setArgsText] = useState(registryArgsOf(inst).join('\n'));
  const [envText, setEnvText] = useState(envToText(inst.overrides.env));
  const [saving, setSaving] = useState(false);
  const parsed = parseEnvText(envText);
  return (
    <form
      className="reg-overrides"
      data-testid="overrides-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (parsed.errors.length) return;
        setSaving(true);
        void setOverrides(api, inst.registryId, replace ? parseArgsText(argsText) : null, parsed.env).then((ok) => {
          setSaving(false);
          if (ok) onDone();
        });
      }}
    >
      <div className="small">
        Starts with <code data-testid="overrides-command">{commandLine(inst.command, inst.args)}</code>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} data-testid="overrides-replace" />
        <span>Replace the registry’s arguments with these (one per line)</span>
      </label>
      <label className="field">
        <span>Arguments</span>
        <textarea rows={3} value={argsText} disabled={!replace} onChange={(e) => setArgsText(e.target.value)} spellCheck={false} data-testid="overrides-args" />
      </label>
      <label className="field">
        <span>Environment: NAME=value, one per line (added over the registry’s)</span>
        <textarea rows={3} value={envText} onChange={(e) => setEnvText(e.target.value)} spellCheck={false} data-testid="overrides-env" aria-invalid={parsed.errors.length > 0} />
      </label>
      {parsed.errors.map((m) => (
        <div key={m} className="error small" role="alert">
          {m}
        </div>
      ))}
      <div className="reg-actions">
        <button type="submit" className="primary" disabled={saving || parsed.errors.length > 0} data-testid="overrides-save">
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <span className="muted small">Kept across updates and rollbacks; a running agent uses them after it restarts.</span>
      </div>
    </form>
  );
}

function StartSession({ inst, onClose }: { inst: InstalledAgent; onClose(): void }) {
  const api = useApi();
  useEffect(() => void refreshAgents(api), [api]);
  return (
    <Modal label={`New session with ${inst.name}`} onClose={onClose}>
      <h2>New session with {inst.name}</h2>
      <NewSessionForm
        initialAgentId={inst.agentId}
        autoFocus
        onStarted={(tabId) => {
          onClose();
          useTabs.getState().activate(tabId);
        }}
      />
    </Modal>
  );
}

function Progress({ entry }: { entry: RegistryEntry }) {
  const api = useApi();
  const live = useRegistry((s) => s.progress[entry.id]);
  const p = live ?? entry.progress;
  const [cancelling, setCancelling] = useState(false);
  useEffect(() => {
    if (isTerminal(p)) setCancelling(false);
  }, [p]);
  if (!p || isTerminal(p)) return null;
  const d = describeProgress(p);
  return (
    <div className="reg-progress" data-testid="entry-progress" data-step={p.step}>
      <div className="reg-progress-line">
        <span data-testid="entry-progress-label">{d.label}</span>
        <button
          disabled={cancelling}
          onClick={() => {
            setCancelling(true);
            void cancelInstall(api, entry.id);
          }}
          data-testid="entry-cancel"
        >
          {cancelling ? 'Cancelling…' : 'Cancel'}
        </button>
      </div>
      <div
        className={`reg-bar${d.fraction === null ? ' indeterminate' : ''}`}
        role="progressbar"
        aria-label={d.label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={d.fraction === null ? undefined : Math.round(d.fraction * 100)}
        data-testid="entry-progress-bar"
      >
        <div style={d.fraction === null ? undefined : { width: `${(d.fraction * 100).toFixed(1)}%` }} />
      </div>
      {d.detail && (
        <div className="muted small reg-progress-detail" data-testid="entry-progress-detail">
          {d.detail}
        </div>
      )}
      {p.output && p.output.length > 0 && (
        <details className="reg-progress-output" data-testid="entry-progress-output">
          <summary>Details</summary>
          <pre>{p.output.join('\n')}</pre>
        </details>
      )}
    </div>
  );
}

function Badge({ kind, children, title, testId }: { kind: 'installed' | 'update' | 'problem' | 'plain'; children: ReactNode; title?: string; testId?: string }) {
  return (
    <span className={`reg-badge ${kind}`} title={title} data-testid={testId}>
      {children}
    </span>
  );
}

/** One registry entry: what it is, its install state, and what can be done with it. */
export function EntryCard({ entry, listed = true }: { entry: RegistryEntry; listed?: boolean }) {
  const api = useApi();
  const busy = useRegistry((s) => s.busy[entry.id]);
  const failure = useRegistry((s) => s.failures[entry.id]);
  const note = useRegistry((s) => s.notes[entry.id]);
  const live = useRegistry((s) => s.progress[entry.id]);
  const running = !isTerminal(live ?? entry.progress);
  const [panel, setPanel] = useState<'none' | 'settings' | 'uninstall'>('none');
  const [session, setSession] = useState(false);
  const closeSession = useCallback(() => setSession(false), []);
  const inst = entry.installed;
  const kinds = entry.installKind ? KIND_ORDER.filter((k) => entry.distributions.includes(k) && KIND_ORDER.indexOf(k) >= KIND_ORDER.indexOf(entry.installKind!)) : [];
  const [kind, setKind] = useState<DistKind | null>(entry.installKind);
  const chosenKind = kind && kinds.includes(kind) ? kind : entry.installKind;
  const disabled = busy !== undefined || running;

  useEffect(() => {
    if (!inst) setPanel('none');
  }, [inst]);

  const openRepo = () => {
    if (isHttpUrl(entry.repository)) void openExternalLink(api, entry.repository);
  };

  return (
    <li
      className={`reg-entry${inst ? ' installed' : ''}`}
      data-testid="registry-entry"
      data-registry-id={entry.id}
      data-installed-version={inst?.version ?? ''}
      aria-label={entry.name}
    >
      <RegistryIcon registryId={entry.id} name={entry.name} icon={listed ? entry.icon : null} />
      <div className="reg-main">
        <div className="reg-title-line">
          <h3 className="reg-name" data-testid="entry-name">
            {entry.name}
          </h3>
          <span className="reg-version muted" data-testid="entry-version">
            {entry.version}
          </span>
          {inst && (
            <Badge kind="installed" testId="entry-installed-badge" title={`Installed in ${inst.dir}`}>
              Installed {inst.version}
            </Badge>
          )}
          {entry.updateAvailable && inst && (
            <Badge kind="update" testId="entry-update-badge">
              Update available: {entry.version}
            </Badge>
          )}
          {inst?.problem && (
            <Badge kind="problem" testId="entry-problem-badge">
              Needs reinstall
            </Badge>
          )}
        </div>
        <p className="reg-description" data-testid="entry-description">
          {entry.description}
        </p>
        <div className="reg-meta small muted">
          <span data-testid="entry-id">{entry.id}</span>
          {entry.license && <span data-testid="entry-license">License: {entry.license}</span>}
          {entry.authors.length > 0 && <span data-testid="entry-authors">By {entry.authors.join(', ')}</span>}
          {isHttpUrl(entry.repository) && (
            <a
              href={entry.repository}
              onClick={(e) => {
                e.preventDefault();
                openRepo();
              }}
              title={`Open ${entry.repository} in your browser`}
              data-testid="entry-repo"
            >
              {entry.repository.replace(/^https?:\/\//, '')}
            </a>
          )}
        </div>
        <div className="reg-kinds small">
          {entry.distributions.map((k) => (
            <span key={k} className={`reg-kind${inst?.kind === k ? ' current' : ''}`} title={KIND_TITLE[k]} data-testid="entry-kind" data-kind={k}>
              {KIND_TEXT[k]}
            </span>
          ))}
          {!inst && entry.unavailableReason && (
            <span className="muted" data-testid="entry-unavailable">
              {entry.unavailableReason}
            </span>
          )}
        </div>

        {inst?.problem && (
          <div className="error small" data-testid="entry-problem">
            {inst.problem}
          </div>
        )}
        {inst && inst.warnings.length > 0 && (
          <ul className="reg-warnings small">
            {inst.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        )}

        <Progress entry={entry} />

        {!running && (
          <div className="reg-actions">
            {!inst && listed && entry.installKind && (
              <>
                <button className="primary" disabled={disabled} onClick={() => void install(api, entry.id, chosenKind ?? undefined)} data-testid="entry-install">
                  {busy === 'install' ? 'Installing…' : 'Install'}
                </button>
                {kinds.length > 1 && (
                  <label className="small muted">
                    using{' '}
                    <select value={chosenKind ?? ''} onChange={(e) => setKind(e.target.value as DistKind)} data-testid="entry-kind-select" aria-label="Distribution to install">
                      {kinds.map((k) => (
                        <option key={k} value={k}>
                          {KIND_TEXT[k]}
                        </option>
                      ))}
                    </select>
                  </label>
                )}
              </>
            )}
            {inst && !inst.problem && (
              <button className="primary" disabled={disabled} onClick={() => setSession(true)} data-testid="entry-start-session">
                Start a session
              </button>
            )}
            {inst?.problem && listed && entry.installKind && (
              <button className="primary" disabled={disabled} onClick={() => void install(api, entry.id)} data-testid="entry-reinstall">
                Reinstall {entry.version}
              </button>
            )}
            {inst && entry.updateAvailable && (
              <button disabled={disabled} onClick={() => void update(api, entry.id)} data-testid="entry-update">
                {busy === 'update' ? 'Updating…' : `Update to ${entry.version}`}
              </button>
            )}
            {inst?.previousVersion && (
              <button
                disabled={disabled}
                onClick={() => void rollback(api, entry.id)}
                title={`Switch back to ${inst.previousVersion}; ${inst.version} stays installed`}
                data-testid="entry-rollback"
              >
                {busy === 'rollback' ? 'Rolling back…' : `Roll back to ${inst.previousVersion}`}
              </button>
            )}
            {inst && (
              <button disabled={disabled} onClick={() => setPanel(panel === 'settings' ? 'none' : 'settings')} aria-expanded={panel === 'settings'} data-testid="entry-settings">
                Arguments & environment
              </button>
            )}
            {inst && (
              <button disabled={disabled} onClick={() => setPanel('uninstall')} data-testid="entry-uninstall">
                Uninstall
              </button>
            )}
          </div>
        )}

        {inst && panel === 'uninstall' && !running && (
          <div className="reg-confirm" role="alertdialog" aria-label={`Uninstall ${inst.name}?`} data-testid="entry-uninstall-confirm">
            <span>
              Uninstall {inst.name}? Its files (every installed version) and your argument and environment settings are removed. Past sessions stay in History.
            </span>
            <div className="reg-actions">
              <button
                className="danger"
                disabled={busy !== undefined}
                onClick={() => void uninstall(api, entry.id).then((ok) => ok && setPanel('none'))}
                data-testid="entry-uninstall-yes"
              >
                {busy === 'uninstall' ? 'Uninstalling…' : 'Uninstall'}
              </button>
              <button onClick={() => setPanel('none')} data-testid="entry-uninstall-no">
                Keep it
              </button>
            </div>
          </div>
        )}
        {inst && panel === 'settings' && <OverridesForm key={`${inst.version}`} inst={inst} onDone={() => setPanel('none')} />}

        {failure && <FailureBox entry={entry} failure={failure} />}
        {note && !failure && (
          <div className="reg-note small" role="status" data-testid="entry-note">
            {note}{' '}
            <button className="link-button" onClick={() => dismissNote(entry.id)} aria-label="Dismiss">
              <X size={12} />
            </button>
          </div>
        )}
      </div>
      {session && inst && <StartSession inst={inst} onClose={closeSession} />}
    </li>
  );
}

/** An installed agent the registry no longer lists, shown like an entry. */
export function orphanEntry(inst: InstalledAgent): RegistryEntry {
  return {
    id: inst.registryId,
    name: inst.name,
    version: inst.version,
    description: 'No longer listed by the registry: it keeps working, but gets no updates from there.',
    repository: null,
    authors: [],
    license: null,
    icon: null,
    distributions: [inst.kind],
    installKind: null,
    unavailableReason: null,
    installed: inst,
    updateAvailable: false,
    progress: null,
  };
}
