import { join } from 'node:path';
import type { ChangeSet, CheckpointFolder, CheckpointStatus, FileDiff, Restore, RestoreReport, TurnCheckpoint } from '../../../shared/contract/checkpoints';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { StoreService } from '../store/store-service';
import { SettingsService } from '../settings/settings-service';
import type { Host } from '../host/host';
import { ChangeReader } from './change-reading';
import { CheckpointFolders, LOCAL } from './checkpoint-folders';
import type { CheckpointRow } from './checkpoint-rows';
import { checkpointStatus, readSettings, type CheckpointSettings, type CheckpointSettingsSource } from './checkpoint-settings';
import { FolderWatches } from './folder-watches';
import { PendingRestores } from './pending-restores';
import { Restores, type RevertScope } from './restores';
import { TurnRecorder, type TurnInfo, type TurnRecordedListener } from './turn-recording';

export type { CheckpointSettings, CheckpointSettingsSource } from './checkpoint-settings';
export type { TurnInfo, TurnRecordedListener } from './turn-recording';

const PRUNE_EVERY_MS = 6 * 60 * 60 * 1000;

/**
 * Checkpoints of session folders: a snapshot before and after every turn (turnStarting, turnEnded), the changes
 * between any two, and restores (revert, rewind, undo) that never lose what the user wrote. Composes the
 * folders and their snapshots (checkpoint-folders.ts), the turns (turn-recording.ts), reading changes
 * (change-reading.ts), restores (restores.ts) and finishing restores cut short (pending-restores.ts).
 */
export class CheckpointService implements Disposable {
  private readonly host: Host;
  private readonly root: string;
  private readonly folders: CheckpointFolders;
  private readonly reader: ChangeReader;
  private readonly turns: TurnRecorder;
  private readonly restores: Restores;
  private readonly pending: PendingRestores;
  private statusPromise: Promise<CheckpointStatus> | null = null;
  private readonly settingsSource: CheckpointSettingsSource;
  private readonly settingsLink: Disposable;
  private readonly watches: FolderWatches;
  private stopTimers: () => void = () => {};

  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus,
    dataDir: string,
    private readonly options: {
      /** PATH to find git on (default: the app's). */
      pathEnv?: string;
      autoPrune?: boolean;
      beforeWaitMs?: number;
      /** Longest a turn waits for a "before" snapshot that reads the whole folder (default: beforeWaitMs). */
      fullReadWaitMs?: number;
      /** The app's settings (default: read straight from the store). */
      settings?: CheckpointSettingsSource;
      /** This machine. */
      host: Host;
      /** The other hosts sessions run on, while they are connected (their folders' checkpoints are kept there). */
      hosts?: (hostId: string) => Host | undefined;
    },
  ) {
    this.host = options.host;
    this.root = join(dataDir, 'checkpoints');
    this.settingsSource = options.settings ?? new SettingsService(store, bus);
    const settings = () => this.settings();
    this.folders = new CheckpointFolders(store, this.root, this.host, settings, options.hosts);
    // No turn runs yet in this process: one still "running" was cut when the previous run stopped.
    // (Not while the store cannot be opened: the app then shows the store's problem and starts again once it is dealt with.)
    if (store.available) this.folders.rows().endInterruptedTurns('Switchboard stopped during this turn (it was closed or killed), so its changes were not recorded');
    // What is captured changed: folders known so far capture by the new rules from their next snapshot.
    this.settingsLink = this.settingsSource.onChange(({ key }) => {
      if (key !== 'checkpoints.maxFileBytes' && key !== 'checkpoints.excludes') return;
      const s = this.settings();
      for (const folder of this.folders.byReal.values()) {
        void this.folders.exclusive(folder, () => folder.repo.configure(s.maxFileBytes, s.excludes)).catch((e: unknown) => console.error(`checkpoints: reconfiguring ${folder.path} failed:`, e));
      }
    });
    // A folder under review changed outside a turn (a turn's end says so itself): its reviews read it again.
    this.watches = new FolderWatches(
      (key, onEvent, opts) => {
        const [hostId, path] = key.includes('\0') ? (key.split('\0') as [string, string]) : [LOCAL, key];
        return this.folders.site(hostId).host.watch(path, onEvent, opts);
      },
      (key) => {
        const folder = this.folders.byReal.get(key);
        if (folder && folder.running.size === 0 && !this.folders.disposed) this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: null, turnId: null });
      },
      { ignore: this.settings().excludes.map((e) => e.replace(/\/$/, '')) },
    );
    this.reader = new ChangeReader(this.folders, this.watches);
    this.turns = new TurnRecorder(store, bus, this.folders, this.reader, () => this.status(), {
      ...(options.beforeWaitMs !== undefined ? { beforeWaitMs: options.beforeWaitMs } : {}),
      ...(options.fullReadWaitMs !== undefined ? { fullReadWaitMs: options.fullReadWaitMs } : {}),
    });
    this.restores = new Restores(store, bus, this.folders, this.reader);
    this.pending = new PendingRestores(store, bus, this.folders, this.reader, (hostId) => hostId === LOCAL || options.hosts?.(hostId) !== undefined);
    if (options.autoPrune !== false) {
      const run = () => void this.prune().catch((e: unknown) => console.error('checkpoint pruning failed:', e));
      const first = setTimeout(run, 60_000);
      const every = setInterval(run, PRUNE_EVERY_MS);
      first.unref();
      every.unref();
      this.stopTimers = () => {
        clearTimeout(first);
        clearInterval(every);
      };
    }
  }

  register(router: Router): void {
    router.handle('checkpoints.status', () => this.status());
    router.handle('checkpoints.listTurns', async (p) => ({ turns: await this.listTurns(p.sessionId) }));
    router.handle('checkpoints.sessionChanges', (p) => this.sessionChanges(p.sessionId));
    router.handle('checkpoints.fileDiff', (p) => this.fileDiff(p.from, p.to, p.path));
    router.handle('checkpoints.revert', (p) => this.revert(p.from, p.to, p.scope, p.overwrite));
    router.handle('checkpoints.rewind', (p) => this.rewind(p.turnId, p.overwrite));
    router.handle('checkpoints.undoRestore', (p) => this.undoRestore(p.restoreId));
    router.handle('checkpoints.listRestores', (p) => this.listRestores(p.folderId));
    router.handle('checkpoints.folders', async () => ({ folders: await this.folderList() }));
    router.handle('checkpoints.deleteFolder', async (p) => {
      await this.deleteFolder(p.folderId);
      return {};
    });
    router.handle('checkpoints.prune', async () => ({ removedCheckpoints: await this.prune() }));
  }

  status(): Promise<CheckpointStatus> {
    this.statusPromise ??= checkpointStatus(this.host, this.options.pathEnv);
    return this.statusPromise;
  }

  settings(): CheckpointSettings {
    return readSettings(this.settingsSource);
  }

  // ───────────── sessions and turns ─────────────

  sessionOpened(sessionId: string, roots: readonly string[], hostId = LOCAL): Promise<void> {
    return this.turns.sessionOpened(sessionId, roots, hostId);
  }

  sessionClosed(sessionId: string): void {
    this.turns.sessionClosed(sessionId);
  }

  turnStarting(turn: TurnInfo): Promise<void> {
    return this.turns.turnStarting(turn);
  }

  turnEnded(turn: TurnInfo): void {
    this.turns.turnEnded(turn);
  }

  /** Listens for turns whose checkpoints are recorded (history makes their changed paths searchable). */
  onTurnRecorded(listener: TurnRecordedListener): Disposable {
    return this.turns.onTurnRecorded(listener);
  }

  /** Takes a checkpoint of a folder now (after whatever is queued on it). */
  async checkpoint(path: string, kind = 'manual', hostId = LOCAL): Promise<CheckpointRow> {
    const folder = await this.folders.get(path, hostId);
    return this.folders.exclusive(folder, () => this.folders.takeCheckpoint(folder, kind));
  }

  /** Resolves once every queued snapshot and restore has finished. */
  async idle(): Promise<void> {
    await this.turns.idle();
    for (const folder of this.folders.byReal.values()) await folder.queue;
  }

  // ───────────── reading changes ─────────────

  listTurns(sessionId: string): Promise<TurnCheckpoint[]> {
    return this.reader.listTurns(sessionId);
  }

  sessionChanges(sessionId: string): Promise<{ folders: Array<{ folderId: string; folder: string; folderMissing: boolean; changes: ChangeSet; editedSince: string[] }> }> {
    return this.reader.sessionChanges(sessionId);
  }

  fileDiff(fromId: string, toId: string, path: string): Promise<FileDiff> {
    return this.reader.fileDiff(fromId, toId, path);
  }

  // ───────────── restores ─────────────

  /** `overwrite`: paths changed since that the user chose to put back anyway (see RestoreReport.refused[].choice). */
  revert(fromId: string, toId: string, scope: RevertScope, overwrite: readonly string[] = []): Promise<RestoreReport> {
    return this.restores.revert(fromId, toId, scope, new Set(overwrite));
  }

  rewind(turnId: string, overwrite: readonly string[] = []): Promise<RestoreReport> {
    return this.restores.rewind(turnId, new Set(overwrite));
  }

  undoRestore(restoreId: string): Promise<RestoreReport> {
    return this.restores.undoRestore(restoreId);
  }

  listRestores(folderId: string): { restores: Restore[] } {
    return this.restores.listRestores(folderId);
  }

  /**
   * Restores cut short (Switchboard was killed or crashed mid-way) are finished now (pending-restores.ts);
   * the notices it gave.
   */
  async recoverInterrupted(): Promise<string[]> {
    if (!this.store.available || !(await this.status()).available) return [];
    // The app may have been closed while the status was read (a quick quit).
    if (!this.store.available) return [];
    return this.pending.recover();
  }

  // ───────────── disk ─────────────

  async folderList(): Promise<CheckpointFolder[]> {
    return Promise.all(
      this.folders
        .rows()
        .folders()
        .map(async (f) => ({
          id: f.id,
          path: f.path,
          // A host not connected now: its size is not known here.
          bytes: await this.folders
            .get(f.path, f.host_id)
            .then((folder) => folder.repo.size())
            .catch(() => 0),
          checkpoints: f.checkpoints,
          oldestAt: f.oldest,
          newestAt: f.newest,
        })),
    );
  }

  async deleteFolder(folderId: string): Promise<void> {
    const folder = await this.folders.byId(folderId);
    this.restores.refuseWhileRunning(folder);
    await this.folders.exclusive(folder, async () => {
      this.restores.refuseWhileRunning(folder);
      this.folders.rows().deleteFolder(folderId);
      await folder.repo.remove();
      await this.folders.forget(folder);
    });
    this.bus.emit('checkpoints.changed', { folderId, sessionId: null, turnId: null });
  }

  /** Drops checkpoints older than the retention period, then the oldest until each folder fits its size cap. */
  async prune(now = Date.now()): Promise<number> {
    if (!this.store.available) return 0;
    const s = this.settings();
    const cutoff = now - s.retentionDays * 24 * 60 * 60 * 1000;
    let removed = 0;
    for (const f of this.folders.rows().folders()) {
      const folder = await this.folders.get(f.path, f.host_id).catch(() => null);
      if (!folder) continue;
      removed += await this.folders.exclusive(folder, async () => {
        const rows = this.folders.rows();
        let count = 0;
        const drop = async (ids: string[]) => {
          if (ids.length === 0) return;
          rows.deleteCheckpoints(ids);
          await folder.repo.forget(ids);
          await folder.repo.gc();
          count += ids.length;
        };
        await drop(rows.checkpointIds(folder.id).filter((c) => c.created_at < cutoff).map((c) => c.id));
        for (let round = 0; round < 8 && (await folder.repo.size()) > s.maxBytesPerFolder; round++) {
          const all = rows.checkpointIds(folder.id);
          if (all.length <= 1) break;
          await drop(all.slice(0, Math.max(1, Math.floor((all.length - 1) / 2))).map((c) => c.id));
        }
        return count;
      });
    }
    if (removed > 0) this.reader.clearCache();
    return removed;
  }

  async dispose(): Promise<void> {
    this.folders.disposed = true;
    this.watches.dispose();
    this.stopTimers();
    void this.settingsLink.dispose();
    await this.idle();
    for (const folder of this.folders.byReal.values()) {
      this.folders.unwatch(folder);
      await folder.repo.flush().catch((e: unknown) => console.error(`checkpoints: saving the scan state of ${folder.path} failed:`, e));
    }
  }
}
