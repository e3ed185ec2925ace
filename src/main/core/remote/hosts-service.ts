/**
 * Settings → Hosts and the sessions' hosts: this machine, the aliases of the user's ~/.ssh/config and the
 * `user@host[:port]` targets they added. Connecting checks the host step by step with the user's OpenSSH
 * (ssh-probe.ts), then opens the host's one multiplexed connection (the RemoteHostFactory: the SSH Host),
 * which is registered in `Hosts` under the host's id for every session, terminal and file access on it.
 */
import { dirname, join } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import {
  formatSshAddress,
  hostLabel,
  LOCAL_HOST_ID,
  parseSshAddress,
  sshHostId,
  sshTargetOf,
  type ConnectFailure,
  type HostInfo,
  type HostState,
} from '../../../shared/contract/hosts';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import { folderProblem } from '../host/folder-check';
import type { Host } from '../host/host';
import type { Hosts } from '../host/hosts';
import { configAliases, type EffectiveSsh } from './ssh-config';
import { authenticate, resolveTarget, type SshContext } from './ssh-probe';

/** A connected SSH host: a Host over one multiplexed connection; disposing it closes the connection. */
export type RemoteHost = Host & Disposable;

/** Opens the multiplexed connection to a checked host (copying its helper there first when needed). */
export interface RemoteHostFactory {
  open(
    spec: { id: string; target: string; configFile: string | null; env: Record<string, string> },
    events: { onState(state: Exclude<HostState, 'connecting'>, error: string | null): void },
  ): Promise<RemoteHost>;
}

export interface HostsServiceDeps {
  router: Router;
  bus: EventBus;
  hosts: Hosts;
  /** The environment ssh runs in here (its agent socket, HOME, PATH). */
  env: Record<string, string>;
  home: string;
  /** `ssh -F` file; null: the user's own ~/.ssh/config. */
  configFile: string | null;
  /** The `hosts.added` setting. */
  added: { read(): readonly string[]; write(targets: string[]): Promise<void> };
  /** Null: this build cannot open SSH hosts yet (the checks still run and say what they find). */
  factory: RemoteHostFactory | null;
}

interface Entry {
  state: HostState;
  error: string | null;
  host: RemoteHost | null;
  /** The host's place in `Hosts` while it is connected. */
  registration: Disposable | null;
  connecting: Promise<ConnectOutcome> | null;
}

type ConnectOutcome = { ok: true } | { ok: false; failure: ConnectFailure };

const MAX_ALIASES = 200;
const MAX_COMPLETIONS = 100;

export class HostsService implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private disposed = false;

  constructor(private readonly deps: HostsServiceDeps) {
    deps.hosts.setConnector((id) => this.ensure(id));
  }

  private get ssh(): SshContext {
    return { local: this.deps.hosts.local, env: this.deps.env, configFile: this.deps.configFile };
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
      const host = await this.hostForRequest(hostId);
      const problem = await folderProblem(host, path);
      return { ok: problem === null, path, message: problem };
    });
    router.handle('hosts.completeFolder', async ({ hostId, prefix }) => ({ folders: await completeFolder(await this.hostForRequest(hostId), prefix) }));
    return this;
  }

  // ───────────── the list ─────────────

  /** The aliases of the ssh config (a missing or unreadable file names none). */
  private async aliases(): Promise<string[]> {
    const file = this.deps.configFile ?? join(this.deps.home, '.ssh', 'config');
    try {
      const fs = await this.deps.hosts.local.files([dirname(file)]);
      const read = await fs.readFileIfExists(file, { maxBytes: 4 * 1024 * 1024 });
      return read ? configAliases(read.data.toString('utf8')).slice(0, MAX_ALIASES) : [];
    } catch {
      return [];
    }
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
    const entry = this.entries.get(id);
    const r = await resolveTarget(this.ssh, target).catch(() => null);
    const resolved = r && !('kind' in r) ? { user: r.user, hostname: r.hostname, port: r.port, proxyJump: r.proxyJump } : null;
    return { id, kind: 'ssh', label: target, source, resolved, state: entry?.state ?? 'disconnected', error: entry?.error ?? null };
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

  private setState(hostId: string, state: HostState, error: string | null): void {
    const entry = this.entry(hostId);
    entry.state = state;
    entry.error = error;
    if (!this.disposed) this.deps.bus.emit('hosts.state', { hostId, state, error });
  }

  private entry(hostId: string): Entry {
    let e = this.entries.get(hostId);
    if (!e) {
      e = { state: 'disconnected', error: null, host: null, registration: null, connecting: null };
      this.entries.set(hostId, e);
    }
    return e;
  }

  /** Connects (once at a time per host); a failure is a value. */
  connect(hostId: string, acceptHostKey: string | null): Promise<ConnectOutcome> {
    if (hostId === LOCAL_HOST_ID) return Promise.resolve({ ok: true });
    const entry = this.entry(hostId);
    if (entry.host && entry.state !== 'disconnected') return Promise.resolve({ ok: true });
    entry.connecting ??= this.doConnect(hostId, acceptHostKey).finally(() => {
      entry.connecting = null;
    });
    return entry.connecting;
  }

  private async doConnect(hostId: string, acceptHostKey: string | null): Promise<ConnectOutcome> {
    const target = sshTargetOf(hostId);
    if (!target) return { ok: false, failure: { kind: 'failed', message: `${hostId} is not an SSH host` } };
    const fail = (failure: ConnectFailure): ConnectOutcome => {
      this.setState(hostId, 'disconnected', failure.message);
      return { ok: false, failure };
    };
    this.setState(hostId, 'connecting', null);
    const progress = (step: 'resolving' | 'authenticating' | 'preparing') => this.deps.bus.emit('hosts.progress', { hostId, step });
    progress('resolving');
    const resolved: EffectiveSsh | ConnectFailure = await resolveTarget(this.ssh, target);
    if ('kind' in resolved) return fail(resolved);
    progress('authenticating');
    const refused = await authenticate(this.ssh, target, resolved, acceptHostKey);
    if (refused) return fail(refused);
    progress('preparing');
    if (!this.deps.factory) {
      return fail({ kind: 'failed', message: `${target} checks out (it answers, accepts you, and has node and git), but this build cannot run sessions on SSH hosts yet.` });
    }
    let host: RemoteHost;
    try {
      host = await this.deps.factory.open(
        { id: hostId, target, configFile: this.deps.configFile, env: this.deps.env },
        { onState: (state, error) => this.onConnectionState(hostId, state, error) },
      );
    } catch (e) {
      return fail({ kind: 'failed', message: `${target}: preparing the host failed: ${(e as Error).message}` });
    }
    if (this.disposed) {
      await host.dispose();
      return { ok: false, failure: { kind: 'failed', message: 'shutting down' } };
    }
    const entry = this.entry(hostId);
    entry.host = host;
    entry.registration = this.deps.hosts.register(host);
    this.setState(hostId, 'connected', null);
    return { ok: true };
  }

  /** The connection's own news: lost (reconnecting), back, or given up. */
  private onConnectionState(hostId: string, state: Exclude<HostState, 'connecting'>, error: string | null): void {
    const entry = this.entry(hostId);
    if (!entry.host) return;
    if (state === 'disconnected') void this.close(entry).catch(() => {});
    this.setState(hostId, state, error);
  }

  /** The connector `Hosts.ensure` uses: the host connected, or an Error with the reason in words. */
  async ensure(hostId: string): Promise<Host> {
    const outcome = await this.connect(hostId, null);
    if (!outcome.ok) throw new Error(outcome.failure.message);
    const host = this.entry(hostId).host;
    if (!host) throw new Error('the connection was closed');
    return host;
  }

  private async hostForRequest(hostId: string): Promise<Host> {
    try {
      return hostId === LOCAL_HOST_ID ? this.deps.hosts.local : await this.ensure(hostId);
    } catch (e) {
      throw new IpcFailure('unavailable', `${hostLabel(hostId)} cannot be reached: ${(e as Error).message}`);
    }
  }

  async disconnect(hostId: string): Promise<void> {
    const entry = this.entries.get(hostId);
    if (!entry) return;
    await entry.connecting?.catch(() => null);
    await this.close(entry);
    this.setState(hostId, 'disconnected', null);
  }

  private async close(entry: Entry): Promise<void> {
    const { host, registration } = entry;
    entry.host = null;
    entry.registration = null;
    registration?.dispose();
    await host?.dispose();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.deps.hosts.setConnector(null);
    await Promise.all([...this.entries.keys()].map((id) => this.disconnect(id).catch(() => {})));
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
