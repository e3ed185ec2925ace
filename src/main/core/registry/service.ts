import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_REGISTRY_URL,
  REGISTRY_URL_SETTING,
  registryAgentId,
  type DistKind,
  type InstalledAgent,
  type RegistryEntry,
  type RegistryInstallResult,
  type RegistryList,
  type RuntimeCheck,
  type RuntimeTool,
} from '../../../shared/contract/registry';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import { readRegularFile } from '../platform/regular-file';
import { loginShellEnv } from '../platform/shell-env';
import type { StoreService } from '../store/store-service';
import type { SettingsReader } from '../settings/settings-service';
import { RegistryError, errorMessage } from './errors';
import { defaultExtractLimits, type ExtractLimits } from './extract';
import { RegistryFetcher } from './fetcher';
import { httpGet, readBody, statusError } from './http';
import { InstallManager, isNewer, type InstallResult, type InstalledState } from './install-manager';
import { currentPlatformKey } from './platform-key';
import type { Host } from '../host/host';
import { checkTool, checkTools, missingToolProblem, type ToolSearch } from './runtime-check';
import { MAX_SVG_BYTES, sanitizeSvg } from './svg-sanitize';
import { distributionsOf, type AgentManifest } from './validate';

export interface RegistryServiceOptions {
  dataDir: string;
  store: StoreService;
  /** Default: every setting at its default. */
  settings?: SettingsReader;
  router: Router;
  bus: EventBus;
  /** Where installers and runtime checks run their tools. */
  host: Host;
  /** Takes precedence over the registry.url setting (tests). */
  registryUrl?: string;
  /** Idle timeout of the registry request. */
  fetchTimeoutMs?: number;
  /** Idle timeout of archive downloads. */
  downloadIdleTimeoutMs?: number;
  maxDownloadBytes?: number;
  limits?: ExtractLimits;
  /** The login shell's environment (default: loginShellEnv()). */
  env?: () => Promise<Record<string, string>>;
  home?: string;
  /** Extra environment for npm (tests: a registry mirror and cache folder). */
  npmEnv?: Record<string, string>;
}

/**
 * The ACP Registry in the main process: fetches and validates the registry, installs, updates,
 * rolls back and removes agents (as rows of the agents table), checks runtimes, serves icons.
 */
export class RegistryService implements Disposable {
  readonly fetcher: RegistryFetcher;
  readonly installs: InstallManager;
  private readonly env: () => Promise<Record<string, string>>;
  private readonly home: string;
  private attempted = false;
  private readonly iconMemo = new Map<string, { url: string; svg: string }>();

  constructor(private readonly options: RegistryServiceOptions) {
    this.env = options.env ?? (() => loginShellEnv());
    this.home = options.home ?? homedir();
    this.fetcher = new RegistryFetcher(
      { cacheDir: join(options.dataDir, 'registry'), timeoutMs: options.fetchTimeoutMs ?? 20_000, maxBytes: 20 * 1024 * 1024 },
      this.url(),
    );
    this.installs = new InstallManager({
      agentsDir: join(options.dataDir, 'agents'),
      db: () => options.store.db,
      env: this.env,
      home: this.home,
      host: options.host,
      limits: options.limits ?? defaultExtractLimits,
      downloadIdleTimeoutMs: options.downloadIdleTimeoutMs ?? 60_000,
      maxDownloadBytes: options.maxDownloadBytes ?? 2 * 1024 ** 3,
      npmEnv: options.npmEnv,
      onProgress: (p) => options.bus.emit('registry.progress', p),
    });
    this.register(options.router);
  }

  get ready(): Promise<void> {
    return this.installs.ready;
  }

  /** The registry URL: the option, else the setting, else the ACP CDN. */
  url(): string {
    if (this.options.registryUrl) return this.options.registryUrl;
    const v = this.options.settings?.get(REGISTRY_URL_SETTING).trim() ?? '';
    return v || DEFAULT_REGISTRY_URL;
  }

  private checkUrl(url: string): string | null {
    try {
      const u = new URL(url);
      if (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'file:') return null;
      return `the registry URL must be http(s) or file:, not ${u.protocol}`;
    } catch {
      return `the registry URL is not a URL: ${url.slice(0, 200)}`;
    }
  }

  async refresh(): Promise<RegistryList> {
    this.attempted = true;
    const url = this.url();
    const bad = this.checkUrl(url);
    if (bad) return this.view(bad);
    await this.fetcher.refresh(url);
    this.options.bus.emit('registry.changed', { reason: 'refreshed', registryId: null });
    return this.view();
  }

  async list(): Promise<RegistryList> {
    if (!this.attempted && !this.fetcher.hasData) return this.refresh();
    return this.view();
  }

  private entries(): AgentManifest[] {
    return this.fetcher.current(this.url()).registry?.agents ?? [];
  }

  private async entry(registryId: string): Promise<AgentManifest> {
    if (!this.attempted && !this.fetcher.hasData) await this.refresh();
    const entry = this.entries().find((e) => e.id === registryId);
    if (!entry) throw new RegistryError('not_found', `the registry does not list an agent "${registryId}"`);
    return entry;
  }

  private allowFileUrls(): boolean {
    return this.fetcher.current(this.url()).dataUrl?.startsWith('file:') ?? false;
  }

  /** The distribution used by default: this platform's binary, else npm, else uv. */
  static installKind(entry: AgentManifest): { kind: DistKind | null; reason: string | null } {
    const platform = currentPlatformKey();
    const kinds = distributionsOf(entry);
    for (const k of kinds) {
      if (k !== 'binary') return { kind: k, reason: null };
      if (platform && entry.distribution.binary?.[platform]) return { kind: k, reason: null };
    }
    return { kind: null, reason: `${entry.name} has no build for this machine (${platform ?? `${process.platform}-${process.arch}`})` };
  }

  private installedView(state: InstalledState, entry: AgentManifest | undefined): InstalledAgent {
    const { record, manifest } = state;
    const version = record.version ?? '';
    return {
      registryId: record.registryId!,
      agentId: record.id,
      name: record.name,
      version,
      kind: manifest?.kind ?? 'npx',
      previousVersion: state.previousVersion,
      installedAt: manifest?.installedAt ?? record.updatedAt,
      dir: state.dir,
      command: record.command,
      args: record.args,
      env: record.env,
      overrides: state.overrides,
      warnings: manifest?.warnings ?? [],
      problem: state.problem,
      inRegistry: entry !== undefined,
      latestVersion: entry?.version ?? null,
      updateAvailable: entry !== undefined && !!version && isNewer(entry.version, version),
    };
  }

  private view(configError?: string): RegistryList {
    const url = this.url();
    const state = this.fetcher.current(url);
    const warnings = [...(state.registry?.warnings ?? [])];
    let installedStates: InstalledState[] = [];
    try {
      installedStates = this.installs.listInstalled();
    } catch (e) {
      warnings.push(`installed agents cannot be read: ${errorMessage(e)}`);
    }
    const agents = state.registry?.agents ?? [];
    const byId = new Map(agents.map((a) => [a.id, a]));
    const installed = installedStates.map((s) => this.installedView(s, byId.get(s.record.registryId!)));
    const installedById = new Map(installed.map((i) => [i.registryId, i]));
    const entries: RegistryEntry[] = agents.map((a) => {
      const { kind, reason } = RegistryService.installKind(a);
      const inst = installedById.get(a.id) ?? null;
      return {
        id: a.id,
        name: a.name,
        version: a.version,
        description: a.description,
        repository: a.repository ?? null,
        authors: a.authors ?? [],
        license: a.license ?? null,
        icon: a.icon ?? null,
        distributions: distributionsOf(a),
        installKind: kind,
        unavailableReason: reason,
        installed: inst,
        updateAvailable: inst?.updateAvailable ?? false,
        progress: this.installs.progressOf(a.id),
      };
    });
    return {
      source: {
        url,
        dataUrl: state.dataUrl,
        origin: state.origin,
        fetchedAt: state.fetchedAt,
        checkedAt: state.checkedAt,
        notModified: state.notModified,
        error: configError ?? state.error,
        warnings,
        registryVersion: state.registry?.version ?? null,
      },
      platform: currentPlatformKey(),
      entries,
      invalid: state.registry?.invalid ?? [],
      installed,
    };
  }

  private installedAgent(registryId: string): InstalledAgent {
    const state = this.installs.installed(registryId);
    if (!state) throw new RegistryError('not_found', `${registryId} is not installed`);
    return this.installedView(state, this.entries().find((e) => e.id === registryId));
  }

  private finish(result: InstallResult, reason: 'installed' | 'updated', registryId: string): RegistryInstallResult {
    if (result.status === 'cancelled') return { status: 'cancelled' };
    this.options.bus.emit('registry.changed', { reason, registryId });
    return { status: 'installed', agent: this.installedAgent(registryId) };
  }

  async install(registryId: string, kind?: DistKind): Promise<RegistryInstallResult> {
    const entry = await this.entry(registryId);
    const chosen = kind ?? RegistryService.installKind(entry).kind;
    if (!chosen) throw new RegistryError('unavailable', RegistryService.installKind(entry).reason ?? `${entry.name} cannot be installed here`);
    if (!entry.distribution[chosen]) throw new RegistryError('invalid_params', `${entry.name} is not distributed as ${chosen}`);
    const result = await this.installs.install(entry, chosen, { operation: 'install', allowFileUrls: this.allowFileUrls() });
    return this.finish(result, 'installed', registryId);
  }

  async update(registryId: string): Promise<RegistryInstallResult> {
    const state = this.installs.installed(registryId);
    if (!state) throw new RegistryError('not_found', `${registryId} is not installed`);
    const entry = await this.entry(registryId);
    const current = state.record.version ?? '';
    if (!isNewer(entry.version, current)) {
      throw new RegistryError('conflict', `${entry.name} ${current} is already the registry's version (${entry.version})`);
    }
    if (this.installs.versionsOnDisk(registryId).some((m) => m.version === entry.version)) {
      await this.installs.switchTo(registryId, entry.version);
      return this.finish({ status: 'installed', state: this.installs.installed(registryId)! }, 'updated', registryId);
    }
    const previousKind = state.manifest?.kind;
    const kind =
      previousKind && entry.distribution[previousKind] && RegistryService.installKind(entry).kind !== null
        ? previousKind
        : RegistryService.installKind(entry).kind;
    if (!kind) throw new RegistryError('unavailable', RegistryService.installKind(entry).reason ?? `${entry.name} cannot be installed here`);
    const result = await this.installs.install(entry, kind, { operation: 'update', allowFileUrls: this.allowFileUrls() });
    return this.finish(result, 'updated', registryId);
  }

  async rollback(registryId: string): Promise<InstalledAgent> {
    await this.installs.rollback(registryId);
    this.options.bus.emit('registry.changed', { reason: 'rolledBack', registryId });
    return this.installedAgent(registryId);
  }

  async uninstall(registryId: string): Promise<boolean> {
    const removed = await this.installs.uninstall(registryId);
    if (removed) this.options.bus.emit('registry.changed', { reason: 'uninstalled', registryId });
    return removed;
  }

  setOverrides(registryId: string, args: string[] | null, env: Record<string, string>): InstalledAgent | null {
    this.installs.setOverrides(registryId, { args, env });
    this.options.bus.emit('registry.changed', { reason: 'overrides', registryId });
    return this.installs.installed(registryId) ? this.installedAgent(registryId) : null;
  }

  private async search(): Promise<ToolSearch> {
    return { host: this.options.host, env: await this.env(), home: this.home };
  }

  /**
   * What an agent needs before it is installed or started. For an installed npm agent whose node
   * is gone (an nvm upgrade…), the agents row is pointed at the node found now.
   */
  async runtimeCheck(registryId?: string): Promise<RuntimeCheck> {
    const search = await this.search();
    const problems: string[] = [];
    const warnings: string[] = [];
    if (!registryId) {
      const tools = await checkTools(['node', 'npm', 'uv'], search);
      for (const t of tools) if (!t.found) problems.push(missingToolProblem(t, t.name === 'uv' ? 'for Python agents' : 'for npm agents'));
      return { ok: problems.length === 0, tools, problems, warnings };
    }
    const tools: RuntimeTool[] = [];
    const state = this.installs.installed(registryId);
    if (state) {
      warnings.push(...(state.manifest?.warnings ?? []));
      if (state.problem) problems.push(state.problem);
      const launch = state.manifest?.launch;
      if (launch?.type === 'node') {
        const node = await checkTool('node', search);
        tools.push(node);
        if (!existsSync(state.record.command)) {
          if (node.found && node.path) {
            this.installs.relinkNode(registryId, node.path);
            warnings.push(`${state.record.command} is gone; ${state.record.name} now runs with ${node.path}`);
            this.options.bus.emit('registry.changed', { reason: 'relinked', registryId });
          } else {
            problems.push(missingToolProblem(node, `to run ${state.record.name}`));
          }
        }
      } else if (launch?.type === 'exec' && !state.problem && !existsSync(state.record.command)) {
        problems.push(`${state.record.command} is missing; reinstall ${state.record.name}`);
      }
      return { ok: problems.length === 0, tools, problems, warnings };
    }
    const entry = await this.entry(registryId);
    const { kind, reason } = RegistryService.installKind(entry);
    if (!kind) problems.push(reason!);
    const needs: Array<RuntimeTool['name']> = kind === 'npx' ? ['node', 'npm'] : kind === 'uvx' ? ['uv'] : [];
    for (const t of await checkTools(needs, search)) {
      tools.push(t);
      if (!t.found) problems.push(missingToolProblem(t, `to install ${entry.name}`));
    }
    return { ok: problems.length === 0, tools, problems, warnings };
  }

  /** The entry's icon, sanitized; the last good copy is kept on disk for offline use. */
  async icon(registryId: string): Promise<{ svg: string | null; error: string | null }> {
    const entry = await this.entry(registryId);
    if (!entry.icon) return { svg: null, error: `${entry.name} has no icon` };
    const base = this.fetcher.current(this.url()).dataUrl ?? this.url();
    let url: string;
    try {
      url = new URL(entry.icon, base).toString();
    } catch {
      return { svg: null, error: `the icon URL is not usable: ${entry.icon.slice(0, 200)}` };
    }
    const memo = this.iconMemo.get(registryId);
    if (memo?.url === url) return { svg: memo.svg, error: null };
    const dir = join(this.options.dataDir, 'registry', 'icons');
    const cacheFile = join(dir, `${registryId}.json`);
    const cached = (() => {
      try {
        return JSON.parse(readFileSync(cacheFile, 'utf8')) as { url: string; svg: string };
      } catch {
        return null;
      }
    })();
    try {
      let text: string;
      if (url.startsWith('file:')) {
        if (!base.startsWith('file:')) throw new RegistryError('forbidden', 'a remote registry cannot point at local files');
        text = (await readRegularFile(fileURLToPath(url), { maxBytes: MAX_SVG_BYTES })).toString('utf8');
      } else {
        const res = await httpGet(url, { idleTimeoutMs: 15_000 });
        if (res.status !== 200) {
          res.body.resume();
          throw statusError(res);
        }
        text = (await readBody(res.body, url, MAX_SVG_BYTES)).toString('utf8');
      }
      const clean = sanitizeSvg(text);
      if (!clean.ok) throw new Error(clean.error);
      this.iconMemo.set(registryId, { url, svg: clean.svg });
      mkdirSync(dir, { recursive: true });
      const tmp = `${cacheFile}.tmp-${process.pid}`;
      await writeFile(tmp, JSON.stringify({ url, svg: clean.svg }));
      await rename(tmp, cacheFile);
      return { svg: clean.svg, error: null };
    } catch (e) {
      if (cached && typeof cached.svg === 'string') {
        // Sanitized when stored; sanitize again in case the rules got stricter since.
        const again = sanitizeSvg(cached.svg);
        if (again.ok) return { svg: again.svg, error: null };
      }
      return { svg: null, error: `the icon of ${entry.name} could not be loaded: ${errorMessage(e)}` };
    }
  }

  private register(router: Router): void {
    router.handle('registry.list', () => this.list());
    router.handle('registry.refresh', () => this.refresh());
    router.handle('registry.install', ({ registryId, kind }) => this.install(registryId, kind));
    router.handle('registry.cancelInstall', ({ registryId }) => ({ cancelled: this.installs.cancel(registryId) }));
    router.handle('registry.update', ({ registryId }) => this.update(registryId));
    router.handle('registry.rollback', async ({ registryId }) => ({ agent: await this.rollback(registryId) }));
    router.handle('registry.uninstall', async ({ registryId }) => ({ removed: await this.uninstall(registryId) }));
    router.handle('registry.setOverrides', ({ registryId, args, env }) => ({ agent: this.setOverrides(registryId, args, env) }));
    router.handle('registry.runtimeCheck', ({ registryId }) => this.runtimeCheck(registryId));
    router.handle('registry.icon', ({ registryId }) => this.icon(registryId));
  }

  /** Cancels running installs (their staging folders are removed before this resolves). */
  dispose(): Promise<void> {
    return this.installs.dispose();
  }
}

export { registryAgentId };
