import { useEffect, useState } from 'react';
import { allowHostSchema, type ContainerChoice, type EngineStatus, type FenceChoice, type NetworkModeChoice, type RepoContainer } from '@shared/contract/containers';
import type { Api } from '../../ipc/client';
import { useSetting } from '../../app/settings';
import { ErrorAlert } from '../../ui/Alert';

/** The container part of the new-session form: what it is made from, and its fence. */
export interface ContainerDraft {
  source: 'repo' | 'image';
  image: string;
  /** Ids of the repository's fence-lowering settings the user ticks to allow. */
  allow: string[];
  network: NetworkModeChoice;
  /** The `api` network's allow-list as typed, one host a line; null: not edited (the agent's API hosts). */
  allowHosts: string | null;
  memoryMiB: number;
  cpus: number;
}

export const NETWORK_TEXT: Record<NetworkModeChoice, string> = {
  none: 'None: nothing outside the container',
  api: "Only the agent's API (the hosts below)",
  full: 'Full: what this machine reaches',
};

/** The hosts of an allow-list as typed (one a line, or separated by commas or spaces). */
export const splitHosts = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** The choice sent with sessions.create, or a sentence saying what is missing. `apiHosts`: the allow-list offered. */
export function containerChoice(d: ContainerDraft, config: RepoContainer | null, apiHosts: readonly string[] = []): ContainerChoice | { error: string } {
  const fence: FenceChoice = { network: d.network, memoryMiB: d.memoryMiB, cpus: d.cpus };
  if (d.network === 'api') {
    const hosts = d.allowHosts === null ? [...apiHosts] : splitHosts(d.allowHosts);
    const bad = hosts.find((h) => !allowHostSchema.safeParse(h).success);
    if (bad !== undefined) return { error: `Not a host for the allow-list: "${bad.slice(0, 80)}" (a name, name:port or *.suffix).` };
    if (hosts.length === 0) return { error: "Name the hosts the agent's API is on (the allow-list is empty)." };
    fence.allowHosts = hosts;
  }
  // As the form shows it: without a devcontainer.json, the image is what is chosen.
  if (d.source === 'repo' && config) return { source: { kind: 'repo', allow: d.allow }, fence };
  if (!d.image.trim()) return { error: 'Choose the image the container is made from (Settings → Containers has a default).' };
  return { source: { kind: 'image', image: d.image.trim() }, fence };
}

/** The engine of a host and the folder's devcontainer.json, fetched as they change. */
export function useContainerFacts(api: Api, enabled: boolean, hostId: string, folder: string, agentId: string): { engine: EngineStatus | null; config: RepoContainer | null; configError: string | null; apiHosts: string[] } {
  const [engine, setEngine] = useState<EngineStatus | null>(null);
  const [apiHosts, setApiHosts] = useState<string[]>([]);
  useEffect(() => {
    if (!enabled || !agentId) return;
    let stale = false;
    void api.call('containers.apiHosts', { agentId }).then((r) => !stale && setApiHosts(r.ok ? r.value.hosts : []));
    return () => {
      stale = true;
    };
  }, [api, enabled, agentId]);
  const [config, setConfig] = useState<RepoContainer | null>(null);
  const [configError, setConfigError] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let stale = false;
    void api.call('containers.engine', { hostId }).then((r) => !stale && setEngine(r.ok ? r.value : { hostId, engine: null, problem: r.error.message }));
    return () => {
      stale = true;
    };
  }, [api, enabled, hostId]);
  useEffect(() => {
    if (!enabled || !folder.startsWith('/')) return setConfig(null);
    let stale = false;
    const t = setTimeout(() => {
      void api.call('containers.repoConfig', { hostId, folder }).then((r) => {
        if (stale) return;
        setConfig(r.ok ? r.value.config : null);
        setConfigError(r.ok ? null : r.error.message);
      });
    }, 250);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [api, enabled, hostId, folder]);
  return { engine, config, configError, apiHosts };
}

export function useContainerDraft(folder: string): [ContainerDraft, (d: ContainerDraft) => void] {
  const network = useSetting('containers.network');
  const memoryMiB = useSetting('containers.memoryMiB');
  const cpus = useSetting('containers.cpus');
  const defaultImage = useSetting('containers.defaultImage');
  const repos = useSetting('containers.repos');
  const image = repos[folder]?.image ?? defaultImage;
  const [draft, setDraft] = useState<ContainerDraft>({ source: 'repo', image, allow: [], network, allowHosts: null, memoryMiB, cpus });
  useEffect(() => setDraft((d) => ({ ...d, image: d.image || image })), [image]);
  return [draft, setDraft];
}

/** What a network mode is called on a host: "this machine" here, "the host" on an SSH host. */
function networkText(n: NetworkModeChoice, onSsh: boolean): string {
  if (!onSsh) return NETWORK_TEXT[n];
  if (n === 'full') return 'Full: what the host reaches';
  return NETWORK_TEXT[n];
}

/** `onSsh`: the container runs on an SSH host (its engine, its files, and the API proxy: all on the host). */
export function ContainerFields({ draft, onChange, engine, config, configError, apiHosts, onSsh = false }: { draft: ContainerDraft; onChange(d: ContainerDraft): void; engine: EngineStatus | null; config: RepoContainer | null; configError: string | null; apiHosts: string[]; onSsh?: boolean }) {
  const source = config ? draft.source : 'image';
  return (
    <fieldset className="where-field" data-testid="container-fields">
      <legend>The container</legend>
      {engine && (engine.engine ? <p className="muted small" data-testid="container-engine">Engine: {engine.engine}</p> : <ErrorAlert testId="container-engine-problem">{engine.problem}</ErrorAlert>)}
      {configError && <ErrorAlert>{configError}</ErrorAlert>}
      <label className="radio">
        <input type="radio" name="container-source" disabled={!config} checked={source === 'repo'} onChange={() => onChange({ ...draft, source: 'repo' })} data-testid="container-source-repo" />
        {config ? `The repository's ${config.file.split('/').slice(-2).join('/')}` : 'The repository’s devcontainer.json (this folder has none)'}
      </label>
      {config && source === 'repo' && <RepoConfigView config={config} allow={draft.allow} onAllow={(allow) => onChange({ ...draft, allow })} />}
      <label className="radio">
        <input type="radio" name="container-source" checked={source === 'image'} onChange={() => onChange({ ...draft, source: 'image' })} data-testid="container-source-image" />
        An image
      </label>
      {source === 'image' && (
        <label className="field">
          <span>Image (needs node 20+ for npm agents)</span>
          <input value={draft.image} spellCheck={false} onChange={(e) => onChange({ ...draft, image: e.target.value })} placeholder="mcr.microsoft.com/devcontainers/javascript-node:20" data-testid="container-image" />
        </label>
      )}
      <div className="where-row">
        <label className="field">
          <span>Network</span>
          <select value={draft.network} onChange={(e) => onChange({ ...draft, network: e.target.value as NetworkModeChoice })} data-testid="container-network">
            {(Object.keys(NETWORK_TEXT) as NetworkModeChoice[]).map((n) => (
              <option key={n} value={n}>
                {networkText(n, onSsh)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Memory (MiB)</span>
          <input type="number" min={64} value={draft.memoryMiB} onChange={(e) => onChange({ ...draft, memoryMiB: Number(e.target.value) })} data-testid="container-memory" />
        </label>
        <label className="field">
          <span>CPUs</span>
          <input type="number" min={0.5} step={0.5} value={draft.cpus} onChange={(e) => onChange({ ...draft, cpus: Number(e.target.value) })} data-testid="container-cpus" />
        </label>
      </div>
      {draft.network === 'api' && (
        <label className="field">
          <span>Hosts it may reach (one a line: name, name:port or *.suffix; a name alone is port 443)</span>
          <textarea rows={3} spellCheck={false} value={draft.allowHosts ?? apiHosts.join('\n')} onChange={(e) => onChange({ ...draft, allowHosts: e.target.value })} data-testid="container-allow-hosts" />
          <span className="muted small">The container has no network; a proxy of Switchboard’s{onSsh ? ', running on the host,' : ''} opens connections to these hosts only (programs that ignore HTTPS_PROXY reach nothing).</span>
        </label>
      )}
      <p className="muted small">Only the session’s folder is mounted (at its own path); nothing else of {onSsh ? 'the host' : 'the machine'}.</p>
    </fieldset>
  );
}

/** What the repository's devcontainer.json will run, and its settings that would lower the fence. */
function RepoConfigView({ config, allow, onAllow }: { config: RepoContainer; allow: string[]; onAllow(ids: string[]): void }) {
  return (
    <div className="where-detail" data-testid="container-repo-config">
      <p className="small">Made from {config.source}</p>
      {config.features.length > 0 && <p className="small">Features (installed as root while it is built): {config.features.join(', ')}</p>}
      {config.commands.length > 0 && (
        <ul className="small" data-testid="container-commands">
          {config.commands.map((c) => (
            <li key={c.name}>
              <code>{c.name}</code>: <code>{c.command}</code>
              {c.name.startsWith('initializeCommand') ? ' (runs on the host, outside the container)' : ''}
            </li>
          ))}
        </ul>
      )}
      {config.items.length > 0 && (
        <div data-testid="container-fence-items">
          <p className="small">It asks for what would lower the fence:</p>
          {config.items.map((i) =>
            i.verdict === 'refused' ? (
              <p key={i.id} className="small" data-testid="container-item-refused">
                <code>{i.key}</code> {i.detail}: refused ({i.why})
              </p>
            ) : (
              <label key={i.id} className="radio small">
                <input
                  type="checkbox"
                  checked={i.allowed || allow.includes(i.id)}
                  disabled={i.allowed}
                  onChange={(e) => onAllow(e.target.checked ? [...allow, i.id] : allow.filter((x) => x !== i.id))}
                  data-testid="container-item-allow"
                />
                Allow <code>{i.key}</code> {i.detail} for this repository ({i.why})
              </label>
            ),
          )}
        </div>
      )}
    </div>
  );
}
