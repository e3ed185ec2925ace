import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import {
  registryAgentId,
  type DistKind,
  type RegistryProgress,
} from '../../../shared/contract/registry';
import { AgentRepository, type AgentRecord } from '../agents/agent-repository';
import type { Disposable } from '../base/lifecycle';
import type { Db } from '../store/database';
import { CancelledError, RegistryError, errorMessage, isCancel, throwIfAborted } from './errors';
import type { ExtractLimits } from './extract';
import { installBinary } from './installers/binary';
import { installNpx } from './installers/npx';
import type { Host } from '../host/host';
import type { InstallContext, InstallOutcome, Launch, StepUpdate } from './installers/types';
import { installUvx } from './installers/uvx';

/** How many of the tool's last output lines a progress event carries (shown behind Details). */
const OUTPUT_LINES = 40;
import type { AgentManifest, BinaryTarget, PlatformKey } from './validate';

export const MANIFEST_FILE = '.switchboard-install.json';
const STAGING = '.staging';

/** Written into every finished install folder; the folder is complete exactly when this file is there. */
export interface InstallManifest {
  schema: 1;
  registryId: string;
  name: string;
  version: string;
  kind: DistKind;
  installedAt: number;
  launch: Launch;
  /** The registry's args and env for this version (overrides are applied on top, not stored here). */
  args: string[];
  env: Record<string, string>;
  installed: string;
  warnings: string[];
  /** A binary install: the registry's build of this version for each platform (SSH hosts pick theirs). */
  targets?: Partial<Record<PlatformKey, BinaryTarget>>;
}

export interface Overrides {
  args: string[] | null;
  env: Record<string, string>;
}

export interface InstalledState {
  record: AgentRecord;
  manifest: InstallManifest | null;
  dir: string;
  previousVersion: string | null;
  overrides: Overrides;
  problem: string | null;
}

export interface InstallManagerOptions {
  /** <dataDir>/agents */
  agentsDir: string;
  /** The store's database (a getter: the store can be reset while the app runs). */
  db: () => Db;
  /** The login shell's environment. */
  env: () => Promise<Record<string, string>>;
  home: string;
  /** Where installers run npm and uv. */
  host: Host;
  limits: ExtractLimits;
  downloadIdleTimeoutMs: number;
  maxDownloadBytes: number;
  npmEnv?: Record<string, string>;
  onProgress: (p: RegistryProgress) => void;
  now?: () => number;
}

export type InstallResult = { status: 'installed'; state: InstalledState } | { status: 'cancelled' };

interface Running {
  controller: AbortController;
  progress: RegistryProgress;
  lastEmit: number;
  trailing?: NodeJS.Timeout;
  done: Promise<unknown>;
}

const installers: Record<DistKind, (ctx: InstallContext) => Promise<InstallOutcome>> = {
  npx: installNpx,
  uvx: installUvx,
  binary: installBinary,
};

const compareVersions = (a: string, b: string): number =>
  semver.valid(a) && semver.valid(b) ? semver.compare(a, b) : a.localeCompare(b, 'en', { numeric: true });

export function isNewer(candidate: string, than: string): boolean {
  return compareVersions(candidate, than) > 0;
}

function readManifest(dir: string): InstallManifest | null {
  try {
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as InstallManifest;
    if (m.schema !== 1 || typeof m.version !== 'string' || !m.launch || !Array.isArray(m.args)) return null;
    return m;
  } catch {
    return null;
  }
}

/**
 * Installs registry agents into <agentsDir>/<id>/<version>/: each install is built in
 * <agentsDir>/.staging/ and renamed into place only when complete, so a cancelled, failed or killed
 * install leaves nothing half-done (stale staging folders are removed at start-up). The `agents` row
 * (what the session picker lists) points at the current version; one previous version is kept.
 */
export class InstallManager implements Disposable {
  readonly ready: Promise<void>;
  private readonly running = new Map<string, Running>();
  private readonly now: () => number;

  constructor(private readonly options: InstallManagerOptions) {
    this.now = options.now ?? Date.now;
    this.ready = this.cleanStaging();
  }

  private get stagingDir(): string {
    return join(this.options.agentsDir, STAGING);
  }

  private versionDir(registryId: string, version: string): string {
    return join(this.options.agentsDir, registryId, version);
  }

  private repo(): AgentRepository {
    return new AgentRepository(this.options.db());
  }

  private async cleanStaging(): Promise<void> {
    try {
      await rm(this.stagingDir, { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      console.error('registry: could not remove stale install folders:', e);
    }
  }

  progressOf(registryId: string): RegistryProgress | null {
    return this.running.get(registryId)?.progress ?? null;
  }

  isBusy(registryId: string): boolean {
    return this.running.has(registryId);
  }

  cancel(registryId: string): boolean {
    const r = this.running.get(registryId);
    if (!r || r.controller.signal.aborted) return false;
    r.controller.abort();
    return true;
  }

  // ---- overrides ----

  getOverrides(registryId: string): Overrides {
    const row = this.options
      .db()
      .prepare('SELECT args_json, env_json FROM registry_overrides WHERE registry_id = ?')
      .get(registryId) as { args_json: string | null; env_json: string } | undefined;
    if (!row) return { args: null, env: {} };
    return { args: row.args_json === null ? null : (JSON.parse(row.args_json) as string[]), env: JSON.parse(row.env_json) as Record<string, string> };
  }

  /** Stores the overrides and rewrites the agents row when the agent is installed. */
  setOverrides(registryId: string, overrides: Overrides): AgentRecord | null {
    const db = this.options.db();
    db.prepare(
      `INSERT INTO registry_overrides (registry_id, args_json, env_json, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (registry_id) DO UPDATE SET args_json = excluded.args_json, env_json = excluded.env_json, updated_at = excluded.updated_at`,
    ).run(registryId, overrides.args === null ? null : JSON.stringify(overrides.args), JSON.stringify(overrides.env), this.now());
    const state = this.installed(registryId);
    if (!state?.manifest) return state?.record ?? null;
    return this.applyRow(state.manifest);
  }

  // ---- state ----

  /** The finished installs of an agent on disk, newest first. */
  versionsOnDisk(registryId: string): InstallManifest[] {
    const base = join(this.options.agentsDir, registryId);
    let names: string[] = [];
    try {
      names = readdirSync(base);
    } catch {
      return [];
    }
    return names
      .map((v) => readManifest(join(base, v)))
      .filter((m): m is InstallManifest => m !== null && m.registryId === registryId)
      .sort((a, b) => compareVersions(b.version, a.version));
  }

  /** The version a rollback would go back to: the newest one older than the current, else any other. */
  private previousOf(registryId: string, current: string): InstallManifest | null {
    const others = this.versionsOnDisk(registryId).filter((m) => m.version !== current);
    return others.find((m) => compareVersions(m.version, current) < 0) ?? others[0] ?? null;
  }

  installed(registryId: string): InstalledState | null {
    const record = this.repo().get(registryAgentId(registryId));
    if (!record || record.source !== 'registry') return null;
    return this.stateOf(registryId, record);
  }

  listInstalled(): InstalledState[] {
    return this.repo()
      .list()
      .filter((r) => r.source === 'registry' && r.registryId && r.id === registryAgentId(r.registryId))
      .map((r) => this.stateOf(r.registryId!, r));
  }

  private stateOf(registryId: string, record: AgentRecord): InstalledState {
    const version = record.version ?? '';
    const dir = this.versionDir(registryId, version);
    const manifest = version ? readManifest(dir) : null;
    let problem: string | null = null;
    if (!manifest) problem = `the files of version ${version || '?'} are missing (${dir}); reinstall it`;
    else if (manifest.launch.type === 'exec' && !existsSync(join(dir, manifest.launch.path))) problem = `${manifest.launch.path} is missing; reinstall it`;
    else if (manifest.launch.type === 'node' && !existsSync(join(dir, manifest.launch.script))) problem = `${manifest.launch.script} is missing; reinstall it`;
    return {
      record,
      manifest,
      dir,
      previousVersion: version ? (this.previousOf(registryId, version)?.version ?? null) : null,
      overrides: this.getOverrides(registryId),
      problem,
    };
  }

  /** What the agents row says to run: the install's command with the user's overrides on top. */
  private applyRow(manifest: InstallManifest, nodePath?: string): AgentRecord {
    const dir = this.versionDir(manifest.registryId, manifest.version);
    const overrides = this.getOverrides(manifest.registryId);
    const args = overrides.args ?? manifest.args;
    const env = { ...manifest.env, ...overrides.env };
    const launch = manifest.launch;
    const command = launch.type === 'node' ? (nodePath ?? launch.nodePath) : join(dir, launch.path);
    const fullArgs = launch.type === 'node' ? [join(dir, launch.script), ...args] : args;
    return this.repo().upsert({
      id: registryAgentId(manifest.registryId),
      name: manifest.name,
      source: 'registry',
      command,
      args: fullArgs,
      env,
      cwd: null,
      version: manifest.version,
      registryId: manifest.registryId,
    });
  }

  /** Points an npm agent's row at another node (the one it had is gone, e.g. after an nvm upgrade). */
  relinkNode(registryId: string, nodePath: string): AgentRecord | null {
    const state = this.installed(registryId);
    if (!state?.manifest || state.manifest.launch.type !== 'node') return null;
    return this.applyRow(state.manifest, nodePath);
  }

  // ---- operations ----

  private emit(run: Running, update: StepUpdate, force = false): void {
    if (update.outputLine !== undefined && update.outputLine.trim() === '') return;
    const p: RegistryProgress = {
      ...run.progress,
      step: update.step,
      bytesDone: update.bytesDone !== undefined ? update.bytesDone : update.step === run.progress.step ? run.progress.bytesDone : null,
      bytesTotal: update.bytesTotal !== undefined ? update.bytesTotal : update.step === run.progress.step ? run.progress.bytesTotal : null,
      message: update.message !== undefined ? update.message : update.step === run.progress.step ? run.progress.message : null,
      ...(update.outputLine !== undefined || run.progress.output
        ? { output: update.outputLine !== undefined ? [...(run.progress.output ?? []), update.outputLine.slice(0, 500)].slice(-OUTPUT_LINES) : run.progress.output }
        : {}),
    };
    const stepChanged = p.step !== run.progress.step;
    run.progress = p;
    const t = this.now();
    const complete = p.bytesDone !== null && p.bytesDone === p.bytesTotal;
    // At most ~10 events a second; the latest state always goes out (trailing), so a stalled
    // download still shows how far it got.
    if (force || stepChanged || complete || t - run.lastEmit >= 100) {
      clearTimeout(run.trailing);
      run.trailing = undefined;
      run.lastEmit = t;
      this.options.onProgress(p);
    } else if (!run.trailing) {
      run.trailing = setTimeout(() => {
        run.trailing = undefined;
        run.lastEmit = this.now();
        this.options.onProgress(run.progress);
      }, 100 - (t - run.lastEmit));
    }
  }

  /**
   * Installs `entry` (its current version) and makes it the agent's current version. Resolves with
   * 'cancelled' when cancelled; throws a RegistryError with a readable message when it fails.
   */
  async install(
    entry: AgentManifest,
    kind: DistKind,
    options: { operation: 'install' | 'update'; allowFileUrls: boolean },
  ): Promise<InstallResult> {
    const registryId = entry.id;
    if (this.running.has(registryId)) throw new RegistryError('conflict', `${entry.name} is already being installed`);
    if (!entry.distribution[kind]) throw new RegistryError('invalid_params', `${entry.name} is not distributed as ${kind}`);
    this.options.db(); // fail early (typed) when the store is unavailable
    const controller = new AbortController();
    let resolveDone!: () => void;
    const run: Running = {
      controller,
      lastEmit: 0,
      done: new Promise<void>((r) => (resolveDone = r)),
      progress: { registryId, operation: options.operation, version: entry.version, kind, step: 'preparing', bytesDone: null, bytesTotal: null, message: null },
    };
    this.running.set(registryId, run);
    this.emit(run, { step: 'preparing' }, true);
    const stage = join(this.stagingDir, `${registryId}-${entry.version}-${randomBytes(6).toString('hex')}`);
    try {
      await this.ready;
      const out = join(stage, 'out');
      const scratch = join(stage, 'scratch');
      await mkdir(out, { recursive: true });
      await mkdir(scratch, { recursive: true });
      const env = await this.options.env();
      throwIfAborted(controller.signal);
      const outcome = await installers[kind]({
        entry,
        dir: out,
        scratch,
        signal: controller.signal,
        env,
        home: this.options.home,
        host: this.options.host,
        progress: (u) => this.emit(run, u),
        allowFileUrls: options.allowFileUrls,
        limits: this.options.limits,
        downloadIdleTimeoutMs: this.options.downloadIdleTimeoutMs,
        maxDownloadBytes: this.options.maxDownloadBytes,
        npmEnv: this.options.npmEnv,
      });
      throwIfAborted(controller.signal);
      this.emit(run, { step: 'finishing', bytesDone: null, bytesTotal: null, message: null });
      const manifest: InstallManifest = {
        schema: 1,
        registryId,
        name: entry.name,
        version: entry.version,
        kind,
        installedAt: this.now(),
        launch: outcome.launch,
        args: outcome.args,
        env: outcome.env,
        installed: outcome.installed,
        warnings: outcome.warnings,
        // Every platform's build of this version: what an SSH host of another platform gets (host-install.ts).
        ...(kind === 'binary' && entry.distribution.binary ? { targets: entry.distribution.binary } : {}),
      };
      await writeFile(join(out, MANIFEST_FILE), JSON.stringify(manifest, null, 2));
      throwIfAborted(controller.signal);
      // Commit: from here on the install is complete and cancel no longer applies.
      const before = this.installed(registryId)?.record.version ?? null;
      const target = this.versionDir(registryId, entry.version);
      await mkdir(join(this.options.agentsDir, registryId), { recursive: true });
      if (existsSync(target)) await rename(target, join(stage, 'replaced'));
      await rename(out, target);
      this.applyRow(manifest);
      await this.prune(registryId, entry.version, before);
      this.emit(run, { step: 'done', message: outcome.warnings.join(' ') || null }, true);
      return { status: 'installed', state: this.installed(registryId)! };
    } catch (e) {
      if (isCancel(e, controller.signal)) {
        this.emit(run, { step: 'cancelled', bytesDone: null, bytesTotal: null, message: null }, true);
        return { status: 'cancelled' };
      }
      const failure = e instanceof RegistryError ? e : new RegistryError('internal', `installing ${entry.name} failed: ${errorMessage(e)}`);
      this.emit(run, { step: 'failed', bytesDone: null, bytesTotal: null, message: failure.message }, true);
      throw failure;
    } finally {
      await rm(stage, { recursive: true, force: true, maxRetries: 3 }).catch((err: unknown) => console.error('registry: cleanup failed:', err));
      clearTimeout(run.trailing);
      this.running.delete(registryId);
      resolveDone();
    }
  }

  /** Switches the agent to an already installed version (update to a kept newer one, or rollback). */
  async switchTo(registryId: string, version: string): Promise<AgentRecord> {
    if (this.running.has(registryId)) throw new RegistryError('conflict', `${registryId} is being installed`);
    const manifest = readManifest(this.versionDir(registryId, version));
    if (!manifest) throw new RegistryError('not_found', `version ${version} of ${registryId} is not installed`);
    const before = this.installed(registryId)?.record.version ?? null;
    const record = this.applyRow(manifest);
    await this.prune(registryId, version, before);
    return record;
  }

  async rollback(registryId: string): Promise<AgentRecord> {
    if (this.running.has(registryId)) throw new RegistryError('conflict', `${registryId} is being installed`);
    const state = this.installed(registryId);
    if (!state) throw new RegistryError('not_found', `${registryId} is not installed`);
    const previous = this.previousOf(registryId, state.record.version ?? '');
    if (!previous) throw new RegistryError('conflict', `there is no previous version of ${state.record.name} to roll back to`);
    return this.applyRow(previous);
  }

  /** Keeps the current version and the one before it; deletes the others. */
  private async prune(registryId: string, current: string, before: string | null): Promise<void> {
    const keep = new Set([current]);
    if (before && before !== current) keep.add(before);
    else {
      const other = this.previousOf(registryId, current);
      if (other) keep.add(other.version);
    }
    const base = join(this.options.agentsDir, registryId);
    let names: string[] = [];
    try {
      names = readdirSync(base);
    } catch {
      return;
    }
    for (const name of names) {
      if (keep.has(name)) continue;
      await this.removeDir(join(base, name));
    }
  }

  /** Renames into staging first (gone at once from the user's view), then deletes. */
  private async removeDir(dir: string): Promise<void> {
    const trash = join(this.stagingDir, `trash-${randomBytes(6).toString('hex')}`);
    try {
      await mkdir(this.stagingDir, { recursive: true });
      await rename(dir, trash);
    } catch {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      return;
    }
    await rm(trash, { recursive: true, force: true, maxRetries: 3 });
  }

  async uninstall(registryId: string): Promise<boolean> {
    if (this.running.has(registryId)) throw new RegistryError('conflict', `${registryId} is being installed; cancel it first`);
    const removedRow = this.repo().remove(registryAgentId(registryId));
    this.options.db().prepare('DELETE FROM registry_overrides WHERE registry_id = ?').run(registryId);
    const base = join(this.options.agentsDir, registryId);
    const hadFiles = existsSync(base) && statSync(base).isDirectory();
    if (hadFiles) await this.removeDir(base);
    return removedRow || hadFiles;
  }

  async dispose(): Promise<void> {
    const pending = [...this.running.values()];
    for (const r of pending) r.controller.abort(new CancelledError('Switchboard is quitting'));
    await Promise.all(pending.map((r) => r.done));
  }
}
