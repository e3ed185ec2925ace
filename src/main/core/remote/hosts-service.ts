/**
 * Settings → Hosts and the sessions' hosts: this machine, the aliases of the user's ~/.ssh/config and the
 * `user@host[:port]` targets they added. Connecting an SSH host opens its `SshHost` (core/host/ssh: one
 * ControlMaster, the helper on the host), step by step, and registers it in `Hosts` under the host's id for
 * every session, terminal and file access on it. Failures are values with a sentence; an unknown host key
 * waits for the user to accept the very fingerprint shown.
 */
import { IpcFailure } from '../../../shared/contract';
import {
  hostLabel,
  LOCAL_HOST_ID,
  formatSshAddress,
  parseSshAddress,
  sshHostId,
  sshTargetOf,
  targetProblem,
  type ConnectFailure,
  type ConnectStep,
  type HostInfo,
  type HostState,
} from '../../../shared/contract/hosts';
import { Emitter } from '../base/emitter';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import { folderProblem } from '../host/folder-check';
import type { Host } from '../host/host';
import type { Hosts } from '../host/hosts';
import { resolvedConfig } from '../host/ssh/host-keys';
import { SshHost, type SshFailure, type SshHostConfig, type SshHostState, type UnknownHostKey } from '../host/ssh/ssh-host';
import { listSshAliases } from '../host/ssh/ssh-config';

/** How an SSH host is made (tests give their own settings: another known_hosts, a faster grace). */
export type SshHostMaker = (config: Pick<SshHostConfig, 'id' | 'destination' | 'port' | 'configFile'>) => SshHost;

export interface HostsServiceDeps {
  router: Router;
  bus: EventBus;
  hosts: Hosts;
  /** `ssh -F` file; null: the user's own ~/.ssh/config. */
  configFile: string | null;
  /** The `hosts.added` setting. */
  added: { read(): readonly string[]; write(targets: string[]): Promise<void> };
  makeHost: SshHostMaker;
}

interface Entry {
  host: SshHost | null;
  /** The host's place in `Hosts` once it connected (kept while it reconnects). */
  registration: Disposable | null;
  watch: Disposable | null;
  /** The unknown key the last connect met: what accepting records (only if its fingerprint is the one accepted). */
  unknownKey: UnknownHostKey | null;
  /** Why the last connect failed, kept for the list. */
  error: string | null;
}

type ConnectOutcome = { ok: true } | { ok: false; failure: ConnectFailure };

const MAX_ALIASES = 200;
const MAX_COMPLETIONS = 100;

export class HostsService implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private disposed = false;
  private readonly connections = new Emitter<string>();
  /** A host's id each time it is connected (its first connect, and each reconnect). */
  readonly onConnected = this.connections.event;

  constructor(private readonly deps: HostsServiceDeps) {
    deps.hosts.setConnector('ssh', (id) => this.ensure(id));
  }

  register(): this {
    const { router } = this.deps;
    router.handle('hosts.list', async () => ({ hosts: await this.list() }));
    router.handle('hosts.add', ({ target }) => this.add(target));
    router.handle('hosts.remove', ({ hostId }) => this.remove(hostId));
    router.handle('hosts.connect', async ({ hostId, acceptHostKey }) => {
      const outcome = await this.connect(hostId, acceptHostKey ?? null);
      return outcome.ok ? { ok: true as const, host: await this.info(hostId) } : outcome;
    });
    router.handle('hosts.disconnect', async ({ hostId }) => {
      await this.disconnect(hostId);
      return {};
    });
    router.handle('hosts.checkFolder', async ({ hostId, path }) => {
      const problem = await folderProblem(await this.hostForRequest(hostId), path);
      return { ok: problem === null, path, message: problem };
    });
    router.handle('hosts.completeFolder', async ({ hostId, prefix }) => ({ folders: await completeFolder(await this.hostForRequest(hostId), prefix) }));
    return this;
  }

  // ───────────── the list ─────────────

  /** The aliases of the ssh config that ssh can only read as a host name (never one that looks like an option). */
  private async aliases(): Promise<string[]> {
    const aliases = await listSshAliases(...(this.deps.configFile ? [this.deps.configFile] : [])).catch(() => []);
    return aliases.filter((a) => !a.includes('@') && targetProblem(a) === null).slice(0, MAX_ALIASES);
  }

  async list(): Promise<HostInfo[]> {
    const aliases = await this.aliases();
    const added = this.deps.added.read().filter((t) => !aliases.includes(t));
    const remote = await Promise.all([...aliases.map((t) => this.describe(t, 'config')), ...added.map((t) => this.describe(t, 'added'))]);
    return [{ id: LOCAL_HOST_ID, kind: 'local', label: 'This machine', source: 'local', resolved: null, state: 'connected', error: null }, ...remote];
  }

  private async info(hostId: string): Promise<HostInfo> {
    const found = (await this.list()).find((h) => h.id === hostId);
    if (!found) throw new IpcFailure('not_found', `no host ${hostLabel(hostId)}: it is neither in your ssh config nor added`);
    return found;
  }

  private async describe(target: string, source: 'config' | 'added'): Promise<HostInfo> {
    const id = sshHostId(target);
    const { state, error } = this.stateOf(id);
    let resolved: HostInfo['resolved'] = null;
    try {
      // What ssh itself would use: the config's reading of the alias (ProxyJump, port, user).
      const c = await resolvedConfig({ ...destinationOf(target), ...(this.deps.configFile ? { configFile: this.deps.configFile } : {}), controlPath: 'none', connectTimeoutS: 10 });
      const jump = c.get('proxyjump');
      resolved = { user: c.get('user') ?? '', hostname: c.get('hostname') ?? target, port: Number(c.get('port') ?? 22), proxyJump: jump && jump !== 'none' ? jump : null };
    } catch {
      resolved = null;
    }
    return { id, kind: 'ssh', label: target, source, resolved, state, error };
  }

  private stateOf(hostId: string): { state: HostState; error: string | null } {
    const entry = this.entries.get(hostId);
    return entry?.host ? hostState(entry.host.state) : { state: 'disconnected', error: entry?.error ?? null };
  }

  async add(input: string): Promise<HostInfo> {
    const address = parseSshAddress(input);
    if (!address) throw new IpcFailure('invalid_params', `"${input.slice(0, 100)}" is not user@host or user@host:port`);
    const target = formatSshAddress(address);
    const current = this.deps.added.read();
    if (!current.includes(target)) await this.deps.added.write([...current, target]);
    return this.info(sshHostId(target));
  }

  async remove(hostId: string): Promise<Record<string, never>> {
    const target = sshTargetOf(hostId);
    const current = this.deps.added.read();
    if (!target || !current.includes(target)) throw new IpcFailure('not_found', `${hostLabel(hostId)} was not added here (an alias of your ssh config stays while the config has it)`);
    await this.disconnect(hostId);
    this.entries.delete(hostId);
    await this.deps.added.write(current.filter((t) => t !== target));
    return {};
  }

  // ───────────── connections ─────────────

  private entry(hostId: string): Entry {
    let e = this.entries.get(hostId);
    if (!e) {
      e = { host: null, registration: null, watch: null, unknownKey: null, error: null };
      this.entries.set(hostId, e);
    }
    return e;
  }

  /** The host's SshHost, made on first use; its state changes are the sidebar's and the sessions'. */
  private sshHost(hostId: string, target: string): SshHost {
    const entry = this.entry(hostId);
    if (entry.host) return entry.host;
    const host = this.deps.makeHost({ id: hostId, ...destinationOf(target), ...(this.deps.configFile ? { configFile: this.deps.configFile } : {}) });
    entry.host = host;
    entry.watch = host.onState((s) => {
      const { state, error } = hostState(s);
      if (this.disposed) return;
      this.deps.bus.emit('hosts.state', { hostId, state, error });
      if (state === 'connected') this.connections.fire(hostId);
    });
    return host;
  }

  /**
   * Connects; a failure is a value. `acceptHostKey`: the fingerprint the user accepted of the unknown key the
   * last attempt showed; recorded in known_hosts only if it is that key's.
   */
  async connect(hostId: string, acceptHostKey: string | null): Promise<ConnectOutcome> {
    if (hostId === LOCAL_HOST_ID) return { ok: true };
    const target = sshTargetOf(hostId);
    if (!target) return { ok: false, failure: { kind: 'failed', message: `${hostId} is not an SSH host` } };
    if (this.disposed) return { ok: false, failure: { kind: 'failed', message: 'shutting down' } };
    const entry = this.entry(hostId);
    const host = this.sshHost(hostId, target);
    if (acceptHostKey) {
      const key = entry.unknownKey;
      if (!key || !key.fingerprints.some((f) => fingerprintOf(f) === acceptHostKey)) {
        return { ok: false, failure: { kind: 'failed', message: 'That key is not the one the host showed: connect again to see its key.' } };
      }
      await host.acceptHostKey(key);
      entry.unknownKey = null;
    }
    const r = await host.connect((step: ConnectStep) => this.deps.bus.emit('hosts.progress', { hostId, step }));
    if (r.ok) {
      entry.error = null;
      entry.registration ??= this.deps.hosts.register(host);
      return { ok: true };
    }
    const failure = failureOf(target, r.failure);
    entry.unknownKey = r.failure.hostKey ?? null;
    entry.error = failure.message;
    return { ok: false, failure };
  }

  /** The connector `Hosts.ensure` uses: the host connected, or an Error with the reason in words. */
  async ensure(hostId: string): Promise<Host> {
    const outcome = await this.connect(hostId, null);
    if (!outcome.ok) throw new Error(outcome.failure.message);
    return this.deps.hosts.get(hostId);
  }

  private async hostForRequest(hostId: string): Promise<Host> {
    try {
      return hostId === LOCAL_HOST_ID ? this.deps.hosts.local : await this.ensure(hostId);
    } catch (e) {
      throw new IpcFailure('unavailable', `${hostLabel(hostId)} cannot be reached: ${(e as Error).message}`);
    }
  }

  /** Ends the host's connection and stops its processes (its sessions' agents with them). */
  async disconnect(hostId: string): Promise<void> {
    const entry = this.entries.get(hostId);
    if (!entry?.host) return;
    const { host, registration, watch } = entry;
    entry.host = null;
    entry.registration = null;
    entry.watch = null;
    registration?.dispose();
    await host.dispose();
    void watch?.dispose();
    if (!this.disposed) this.deps.bus.emit('hosts.state', { hostId, state: 'disconnected', error: null });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.deps.hosts.setConnector('ssh', null);
    this.connections.dispose();
    await Promise.all([...this.entries.keys()].map((id) => this.disconnect(id).catch(() => {})));
  }
}

/** ssh's destination for a target: the alias, or `user@host` with its port apart. */
function destinationOf(target: string): { destination: string; port?: number } {
  const a = parseSshAddress(target);
  if (!a) return { destination: target };
  const hostname = a.hostname.startsWith('[') ? a.hostname.slice(1, -1) : a.hostname;
  return { destination: `${a.user}@${hostname}`, ...(a.port !== null ? { port: a.port } : {}) };
}

/** What the sidebar shows of an SshHost's state. */
function hostState(s: SshHostState): { state: HostState; error: string | null } {
  switch (s.kind) {
    case 'connecting':
      return { state: 'connecting', error: null };
    case 'connected':
      return { state: 'connected', error: null };
    case 'reconnecting':
      return { state: 'reconnecting', error: s.lastError };
    case 'failed':
      return { state: 'disconnected', error: s.failure.message };
    default:
      return { state: 'disconnected', error: null };
  }
}

/** The SHA256 fingerprint of an `ssh-keygen -l` line ("256 SHA256:… host (ED25519)"). */
const fingerprintOf = (line: string): string => /\b(SHA256:\S+|MD5:\S+)/.exec(line)?.[1] ?? line;
const keyTypeOf = (line: string): string => /\(([^)]+)\)\s*$/.exec(line)?.[1] ?? 'host';

/** The contract's failure for an SshHost's. */
export function failureOf(target: string, f: SshFailure): ConnectFailure {
  switch (f.reason) {
    case 'unreachable':
      return { kind: 'unreachable', message: f.message };
    case 'auth':
      return { kind: 'auth-refused', message: f.message };
    case 'host_key_unknown': {
      const line = f.hostKey?.fingerprints[0];
      if (!line) return { kind: 'failed', message: f.message };
      const fingerprint = fingerprintOf(line);
      const keyType = keyTypeOf(line);
      return {
        kind: 'host-key-unknown',
        message: `${target} is not in your known_hosts yet. Its ${keyType} key has the fingerprint ${fingerprint}: accept it only if that is the host's key.`,
        fingerprint,
        keyType,
      };
    }
    case 'host_key_changed':
      return {
        kind: 'host-key-changed',
        message: `The host key of ${target} is not the one your known_hosts has: Switchboard refuses to connect. If the change is expected, remove the old key (ssh-keygen -R) and connect again.`,
        warning: f.message.slice(0, 8000),
      };
    case 'node_missing':
      return { kind: 'node-missing', message: f.message };
    case 'git_missing':
      return { kind: 'git-missing', message: f.message };
    default:
      return { kind: 'failed', message: f.message };
  }
}

/** Folder names under the prefix's parent that start with its last segment (absolute prefixes only). */
export async function completeFolder(host: Host, prefix: string): Promise<string[]> {
  if (!prefix.startsWith('/')) return [];
  const slash = prefix.lastIndexOf('/');
  const parent = prefix.slice(0, slash) || '/';
  const start = prefix.slice(slash + 1);
  try {
    const fs = await host.files([parent]);
    const entries = await fs.listDir(parent);
    return entries
      .filter((e) => e.kind === 'folder' && e.name.startsWith(start) && (start.startsWith('.') || !e.name.startsWith('.')))
      .map((e) => `${parent === '/' ? '' : parent}/${e.name}`)
      .sort()
      .slice(0, MAX_COMPLETIONS);
  } catch {
    return [];
  }
}
