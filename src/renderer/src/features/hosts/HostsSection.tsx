import { useEffect, useState } from 'react';
import { CircleCheck, LoaderCircle, Plug, Plus, Trash2, Unplug } from 'lucide-react';
import { connectStepSchema, parseSshAddress, type ConnectFailure, type HostInfo } from '@shared/contract/hosts';
import { useApi } from '../../app/api-context';
import type { Api } from '../../ipc/client';
import { ErrorAlert } from '../../ui/Alert';
import { FormActions } from '../../ui/FormActions';
import { FAILURE_TITLE, refreshHosts, STATE_TEXT, STEP_TEXT, stepDuration, syncHosts, useHosts } from './state';
import { VisibleText } from '../../ui/VisibleText';

const STEPS = connectStepSchema.options;

/** Connects a host; the failure (if any) is what the caller shows. */
export async function connectHost(api: Api, hostId: string, acceptHostKey?: string): Promise<ConnectFailure | null> {
  const r = await api.call('hosts.connect', { hostId, ...(acceptHostKey ? { acceptHostKey } : {}) });
  if (!r.ok) return { kind: 'failed', message: r.error.message };
  return r.value.ok ? null : r.value.failure;
}

/** Settings → Hosts: this machine, the aliases of ~/.ssh/config and the hosts added; connect each, add and remove. */
export function HostsSection() {
  const api = useApi();
  const hosts = useHosts((s) => s.hosts);
  const error = useHosts((s) => s.error);
  const [target, setTarget] = useState('');
  const [addError, setAddError] = useState<string | null>(null);
  useEffect(() => syncHosts(api), [api]);
  useEffect(() => void refreshHosts(api), [api]);

  const add = async () => {
    const t = target.trim();
    if (!parseSshAddress(t)) return setAddError('Type user@host, or user@host:port (a port from 1 to 65535). An alias of ~/.ssh/config is listed already.');
    const r = await api.call('hosts.add', { target: t });
    if (!r.ok) return setAddError(r.error.message);
    setAddError(null);
    setTarget('');
    await refreshHosts(api);
  };

  return (
    <section className="hosts-section" data-testid="hosts-section" aria-label="Hosts">
      <p className="muted small">
        Sessions can run on another machine over SSH, with your own OpenSSH: the aliases of your ~/.ssh/config are listed here, with their ProxyJump,
        ports and identities, and your ssh-agent and known_hosts are used as they are.
      </p>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      <ul className="hosts-list">
        {hosts.map((h) => (
          <HostRow key={h.id} host={h} />
        ))}
      </ul>
      <form
        className="hosts-add"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="user@host:port" spellCheck={false} aria-label="user@host:port" data-testid="hosts-add-target" />
        <FormActions>
          <button type="submit" disabled={target.trim() === ''} data-testid="hosts-add">
            <Plus size={14} /> Add host
          </button>
        </FormActions>
      </form>
      {addError && <ErrorAlert testId="hosts-add-error">{addError}</ErrorAlert>}
    </section>
  );
}

function HostRow({ host }: { host: HostInfo }) {
  const api = useApi();
  const step = useHosts((s) => s.steps[host.id]);
  const times = useHosts((s) => s.timings[host.id]);
  const [now, setNow] = useState(() => Date.now());
  const [failure, setFailure] = useState<ConnectFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const connect = async (accept?: string) => {
    setBusy(true);
    setFailure(null);
    const f = await connectHost(api, host.id, accept);
    setBusy(false);
    setFailure(f);
    await refreshHosts(api);
  };
  const remove = async () => {
    if (!window.confirm(`Remove the host ${host.label}?`)) return;
    await api.call('hosts.remove', { hostId: host.id });
    await refreshHosts(api);
  };
  const r = host.resolved;
  const via = r ? `${r.user}@${r.hostname}${r.port !== 22 ? `:${r.port}` : ''}${r.proxyJump ? ` via ${r.proxyJump}` : ''}` : null;
  const connecting = busy || host.state === 'connecting';
  // The current step's time goes on while it runs.
  useEffect(() => {
    if (!connecting) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [connecting]);
  return (
    <li className="host-row" data-testid="host-row" data-host-id={host.id} data-state={host.state}>
      <div className="host-line">
        <span className={`host-dot ${host.state}`} aria-hidden />
        <strong className="host-label"><VisibleText text={host.label} /></strong>
        {host.source === 'config' && <span className="tag">ssh config</span>}
        {via && via !== host.label && <code className="muted small">{via}</code>}
        <span className="spacer" />
        <span className="muted small" data-testid="host-state">
          {host.kind === 'local' ? '' : STATE_TEXT[host.state]}
        </span>
        {host.kind === 'ssh' && host.state !== 'connected' && host.state !== 'reconnecting' && (
          <button onClick={() => void connect()} disabled={connecting} data-testid="host-connect">
            <Plug size={14} /> Connect
          </button>
        )}
        {host.kind === 'ssh' && (host.state === 'connected' || host.state === 'reconnecting') && (
          <button onClick={() => void api.call('hosts.disconnect', { hostId: host.id }).then(() => refreshHosts(api))} data-testid="host-disconnect">
            <Unplug size={14} /> Disconnect
          </button>
        )}
        {host.source === 'added' && (
          <button className="icon" title="Remove" aria-label={`Remove ${host.label}`} onClick={() => void remove()} data-testid="host-remove">
            <Trash2 size={14} />
          </button>
        )}
      </div>
      {(connecting || (failure && times)) && (
        <ol className="host-steps small" data-testid="host-steps">
          {STEPS.map((s, i) => {
            // After a failed connect: the step it stopped at is the last one begun.
            const last = STEPS.filter((x) => times?.began[x] !== undefined).at(-1);
            const at = connecting ? (step ? STEPS.indexOf(step) : -1) : last ? STEPS.indexOf(last) : -1;
            const took = i <= at ? stepDuration(times, s, STEPS, now) : null;
            return (
              <li key={s} className={i < at ? 'done' : i === at ? (connecting ? 'current' : 'failed') : 'todo'} data-testid="host-step">
                {i < at ? <CircleCheck size={12} /> : i === at && connecting ? <LoaderCircle size={12} className="spin" /> : null} {STEP_TEXT[s]}
                {took && (
                  <span className="muted" data-testid="host-step-time">
                    {' '}
                    {took}
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {!connecting && failure && <FailureView failure={failure} onAccept={(fp) => void connect(fp)} onCancel={() => setFailure(null)} />}
      {!connecting && !failure && host.error && <ErrorAlert>{host.error}</ErrorAlert>}
    </li>
  );
}

function FailureView({ failure, onAccept, onCancel }: { failure: ConnectFailure; onAccept(fingerprint: string): void; onCancel(): void }) {
  return (
    <div className="host-failure" role="alert" data-testid="host-failure" data-kind={failure.kind}>
      <strong>{FAILURE_TITLE[failure.kind]}</strong>
      <p className="small">{failure.message}</p>
      {failure.kind === 'host-key-unknown' && (
        <>
          <p className="small">
            {failure.keyType} key fingerprint: <code data-testid="host-fingerprint">{failure.fingerprint}</code>
          </p>
          <FormActions>
            <button className="primary" onClick={() => onAccept(failure.fingerprint)} data-testid="host-key-accept">
              Accept and connect
            </button>
            <button onClick={onCancel} data-testid="host-key-cancel">
              Cancel
            </button>
          </FormActions>
        </>
      )}
      {failure.kind === 'host-key-changed' && failure.warning && <pre className="host-warning small" data-testid="host-key-warning">{failure.warning}</pre>}
    </div>
  );
}
