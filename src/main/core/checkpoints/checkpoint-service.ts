import { createHash, randomUUID } from 'node:crypto';
import { realpath, rm, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import {
  type ChangeSet,
  type CheckpointFolder,
  type CheckpointStatus,
  type FileDiff,
  type Restore,
  type RestoreReport,
  type TurnCheckpoint,
} from '../../../shared/contract/checkpoints';
import type { EventBus } from '../base/event-bus';
import { toDisposable, type Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { StoreService } from '../store/store-service';
import { SettingsService } from '../settings/settings-service';
import { diffSnapshots, hunksOf, isBinary, revertHunk } from './changes';
import { CheckpointRows, type CheckpointRow, type PendingRestoreRow, type TurnRow } from './checkpoint-rows';
import { applyPlan, planRestore, planStatOnly, type PlanStep, type RestoreItem } from './file-restore';
import { gitVersion } from './shadow-git';
import { removeShadow, ShadowRepo, type LargeFile, type Snapshot, type TreeEntry } from './shadow-repo';
import type { Host } from '../host/host';
import { LocalHost } from '../host/local/local-host';
import { FolderWatches } from './folder-watches';
import { FolderFeed } from './folder-changes';
import { countFiles } from './folder-scan';

/** The checkpoint settings (keys checkpoints.* of the settings registry). */
export interface CheckpointSettings {
  retentionDays: number;
  maxBytesPerFolder: number;
  maxFileBytes: number;
  excludes: string[];
}

/** Where the checkpoint service reads its settings, and hears them change. */
export type CheckpointSettingsSource = Pick<SettingsService, 'get' | 'onChange'>;
const MIN_GIT = [2, 25];
const PRUNE_EVERY_MS = 6 * 60 * 60 * 1000;
/** Longest a turn waits for its "before" snapshot. */
const BEFORE_WAIT_MS = 10_000;
/**
 * A folder this small has its first snapshot done in a moment: a turn that starts while it is taken waits for it
 * (at most FIRST_WAIT_MS), so that the turn's "before" is exact. A larger folder's is not waited for.
 */
const SMALL_FOLDER_FILES = 2_000;
const FIRST_WAIT_MS = 5_000;

interface Folder {
  id: string;
  path: string;
  repo: ShadowRepo;
  /** Everything that touches the shadow index runs here, one at a time. */
  queue: Promise<unknown>;
  /** Turns running in the folder: turn id → session id. */
  running: Map<string, string>;
  /** Open sessions whose folder this is (while there is one, the folder is watched). */
  sessions: Set<string>;
  /** The folder's watch: what changed since the last snapshot (null: not watched, snapshots read it all). */
  feed: FolderFeed | null;
  /** The first snapshot, taken in the background when a session opens, until it is done. */
  first: Promise<CheckpointRow | null> | null;
  /** Progress of the snapshot being taken (files recorded, files expected), for sessions that ask. */
  progress: { files: number; total: number | null } | null;
}

/** Snapshot kinds whose checkpoint is checked against the whole folder's stat (the watch is not trusted alone). */
const VERIFIED = new Set(['turn_end', 'restore_pre', 'restore_post', 'restore_recover']);
/** Progress events at most this often. */
const PROGRESS_MS = 250;

/**
 * Told once a turn's "after" checkpoint is taken (or failed), with the turn and when the session's next
 * turn started (null: none yet). Listeners must not throw.
 */
export type TurnRecordedListener = (turn: TurnCheckpoint, nextStartedAt: number | null) => void;

/** A prompt turn of a session: which folders its checkpoints cover (app-core feeds the sessions service's turns here). */
export interface TurnInfo {
  sessionId: string;
  promptId: string;
  /** The session's folder and its additional folders. */
  roots: readonly string[];
}

const isDirectory = (path: string): Promise<boolean> => stat(path).then((s) => s.isDirectory(), () => false);

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Its content was not kept (too large, ignored, inside .git): it can be listed, not diffed or put back. */
const notKept = (f: { tooLarge: boolean; ignored: boolean }): boolean => f.tooLarge || f.ignored;

const byPath = (files: readonly LargeFile[]): Map<string, LargeFile> => new Map(files.map((f) => [f.path, f]));

const sameEntry = (a: TreeEntry | null, b: TreeEntry | null): boolean => (a === null ? b === null : b !== null && a.sha === b.sha && a.mode === b.mode);

/** What a restore's items do, as stored while it runs (merged texts are stored as objects first). */
type StoredStep = { path: string; action: 'written' | 'removed' | 'merged'; entry: TreeEntry | null } | { path: string; refused: string };

/**
 * Checkpoints of session folders: a snapshot before and after every turn (turnStarting, turnEnded), the changes
 * between any two, and restores (revert, rewind, undo) that never lose what the user wrote.
 */
export class CheckpointService implements Disposable {
  private readonly root: string;
  private readonly host: Host;
  private readonly folders = new Map<string, Promise<Folder>>();
  private readonly byReal = new Map<string, Folder>();
  /** Turns being started: their "before" snapshots (turnEnded waits for them). */
  private readonly starting = new Map<string, Promise<Array<{ folder: Folder; turnId: string }>>>();
  /** Turns whose "before" snapshots are taken, until they end. */
  private readonly started = new Map<string, Array<{ folder: Folder; turnId: string }>>();
  /** "After" snapshots being queued. */
  private readonly ending = new Set<Promise<void>>();
  private statusPromise: Promise<CheckpointStatus> | null = null;
  private readonly changeCache = new Map<string, ChangeSet>();
  private readonly recordedListeners = new Set<TurnRecordedListener>();
  private readonly settingsSource: CheckpointSettingsSource;
  private readonly settingsLink: Disposable;
  private disposed = false;
  private readonly watches: FolderWatches;

  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus,
    dataDir: string,
    private readonly options: {
      /** PATH to find git on (default: the app's). */
      pathEnv?: string;
      autoPrune?: boolean;
      beforeWaitMs?: number;
      /** The app's settings (default: read straight from the store). */
      settings?: CheckpointSettingsSource;
      /** Where git runs and folders are restored (default: this machine). */
      host?: Host;
    } = {},
  ) {
    this.host = options.host ?? new LocalHost();
    this.root = join(dataDir, 'checkpoints');
    this.settingsSource = options.settings ?? new SettingsService(store, bus);
    // What is captured changed: folders known so far capture by the new rules from their next snapshot.
    this.settingsLink = this.settingsSource.onChange(({ key }) => {
      if (key !== 'checkpoints.maxFileBytes' && key !== 'checkpoints.excludes') return;
      const s = this.settings();
      for (const folder of this.byReal.values()) {
        void this.exclusive(folder, () => folder.repo.configure(s.maxFileBytes, s.excludes)).catch((e: unknown) => console.error(`checkpoints: reconfiguring ${folder.path} failed:`, e));
      }
    });
    // A folder under review changed outside a turn (a turn's end says so itself): its reviews read it again.
    this.watches = new FolderWatches(
      (root, onEvent, opts) => this.host.watch(root, onEvent, opts),
      (path) => {
        const folder = this.byReal.get(path);
        if (folder && folder.running.size === 0 && !this.disposed) this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: null, turnId: null });
      },
      { ignore: this.settings().excludes.map((e) => e.replace(/\/$/, '')) },
    );
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

  private stopTimers: () => void = () => {};

  register(router: Router): void {
    router.handle('checkpoints.status', () => this.status());
    router.handle('checkpoints.listTurns', async (p) => ({ turns: await this.listTurns(p.sessionId) }));
    router.handle('checkpoints.sessionChanges', (p) => this.sessionChanges(p.sessionId));
    router.handle('checkpoints.fileDiff', (p) => this.fileDiff(p.from, p.to, p.path));
    router.handle('checkpoints.revert', (p) => this.revert(p.from, p.to, p.scope));
    router.handle('checkpoints.rewind', (p) => this.rewind(p.turnId));
    router.handle('checkpoints.undoRestore', (p) => this.undoRestore(p.restoreId));
    router.handle('checkpoints.listRestores', (p) => this.listRestores(p.folderId));
    router.handle('checkpoints.folders', async () => ({ folders: await this.folderList() }));
    router.handle('checkpoints.deleteFolder', async (p) => {
      await this.deleteFolder(p.folderId);
      return {};
    });
    router.handle('checkpoints.prune', async () => ({ removedCheckpoints: await this.prune() }));
  }

  // ───────────── status and settings ─────────────

  status(): Promise<CheckpointStatus> {
    this.statusPromise ??= gitVersion(this.host, this.options.pathEnv).then((v): CheckpointStatus => {
      if (v === null) {
        return {
          available: false,
          reason: 'git_missing',
          message: 'Checkpoints need git, and no git was found. Install git to review and undo what agents change; sessions work without it.',
        };
      }
      const [major = 0, minor = 0] = v.split('.').map(Number);
      if (major < MIN_GIT[0]! || (major === MIN_GIT[0] && minor < MIN_GIT[1]!)) {
        return { available: false, reason: 'git_too_old', message: `Checkpoints need git ${MIN_GIT.join('.')} or newer; this git is ${v}.` };
      }
      return { available: true, gitVersion: v };
    });
    return this.statusPromise;
  }

  settings(): CheckpointSettings {
    const get = this.settingsSource;
    return {
      retentionDays: get.get('checkpoints.retentionDays'),
      maxBytesPerFolder: get.get('checkpoints.maxBytesPerFolder'),
      maxFileBytes: get.get('checkpoints.maxFileBytes'),
      excludes: get.get('checkpoints.excludes'),
    };
  }

  private rows(): CheckpointRows {
    return new CheckpointRows(this.store.db);
  }

  // ───────────── folders and snapshots ─────────────

  private folder(path: string): Promise<Folder> {
    const cached = this.folders.get(path);
    if (cached) return cached;
    const made = (async () => {
      // A folder gone from disk keeps its recorded checkpoints readable (history of past sessions).
      const real = await realpath(path).catch((e: unknown) => {
        if (this.rows().folderByPath(path)) return path;
        throw e;
      });
      // One Folder (one queue) per real path, however it was reached.
      const known = this.byReal.get(real);
      if (known) return known;
      const id = createHash('sha256').update(real).digest('hex').slice(0, 16);
      this.rows().ensureFolder(id, real);
      const s = this.settings();
      const folder: Folder = {
        id,
        path: real,
        repo: new ShadowRepo(join(this.root, id), real, s.maxFileBytes, s.excludes, this.host),
        queue: Promise.resolve(),
        running: new Map(),
        sessions: new Set(),
        feed: null,
        first: null,
        progress: null,
      };
      this.byReal.set(real, folder);
      return folder;
    })();
    this.folders.set(path, made);
    made.catch(() => this.folders.delete(path));
    return made;
  }

  private async folderById(id: string): Promise<Folder> {
    const row = this.rows().folder(id);
    if (!row) throw new IpcFailure('not_found', `no checkpoints for folder ${id}`);
    return this.folder(row.path);
  }

  /** Runs `fn` after everything queued on the folder (snapshots share one index). */
  private exclusive<T>(folder: Folder, fn: () => Promise<T>): Promise<T> {
    const run = folder.queue.then(fn, fn);
    folder.queue = run.catch(() => {});
    return run;
  }

  /** Snapshot + row; call inside `exclusive`. */
  private async takeCheckpoint(folder: Folder, kind: string): Promise<CheckpointRow> {
    const snap = await this.snapshot(folder, kind);
    const row: CheckpointRow = { id: randomUUID(), folderId: folder.id, tree: snap.tree, large: snap.large, kind, createdAt: Date.now() };
    await folder.repo.keep(row.id, row.tree);
    this.rows().insertCheckpoint(row);
    return row;
  }

  /**
   * A snapshot of the folder: only what its watch reported when it is watched and trusted, else all of it
   * (the log says why); the checkpoints a turn's review rests on are checked against the whole folder's stat.
   */
  private async snapshot(folder: Folder, kind: string): Promise<Snapshot> {
    const changes = folder.feed ? await folder.feed.take() : undefined;
    folder.progress = { files: 0, total: this.lastCount.get(folder.id) ?? null };
    try {
      const snap = await folder.repo.snapshot({
        ...(changes ? { changes } : {}),
        verify: VERIFIED.has(kind) && folder.feed !== null,
        onProgress: (files) => {
          if (folder.progress) folder.progress.files = files;
        },
      });
      if (snap.how.kind === 'full' && changes && this.loggedReason.get(folder.id) !== snap.how.reason) {
        console.info(`checkpoints: ${folder.path}: read the whole folder (${snap.how.reason})`);
      }
      this.loggedReason.set(folder.id, snap.how.kind === 'full' ? snap.how.reason : '');
      if (snap.missed.length > 0) {
        const list = snap.missed.slice(0, 5).join(', ') + (snap.missed.length > 5 ? ` and ${snap.missed.length - 5} more` : '');
        console.warn(`checkpoints: ${folder.path}: the watch missed changes to ${list}; the whole folder is read from now on until it is watched again`);
        this.missedWatch.set(folder.id, snap.missed);
        this.unwatch(folder);
      }
      this.lastCount.set(folder.id, snap.files);
      return snap;
    } catch (e) {
      folder.feed?.rescan('the last snapshot failed');
      throw e;
    } finally {
      folder.progress = null;
    }
  }

  /** Files the last snapshot of each folder recorded (what progress counts towards). */
  private readonly lastCount = new Map<string, number>();
  /** Why each folder was last read whole (said once while it stays so). */
  private readonly loggedReason = new Map<string, string>();
  /** What a turn's checkpoints should say that no restore says (this process only). */
  private readonly turnNotices = new Map<string, string>();
  /** Folders whose watch missed a change (found by a verification), with the paths: told on the turn. */
  private readonly missedWatch = new Map<string, string[]>();

  // ───────────── sessions and their folders' watches ─────────────

  /**
   * A session opened (or a turn started) in these folders: they are watched from now on, so that snapshots
   * read only what changed, and a folder never snapshotted by this process gets its first snapshot now, in
   * the background, with progress in the session.
   */
  async sessionOpened(sessionId: string, roots: readonly string[]): Promise<void> {
    if (this.disposed || !this.store.available || !(await this.status()).available) return;
    for (const root of new Set(roots)) {
      const folder = await this.folder(root).catch(() => null);
      if (!folder || !(await isDirectory(folder.path))) continue;
      folder.sessions.add(sessionId);
      this.watch(folder);
      if (!this.snapshotted.has(folder.id) && !folder.first) {
        this.snapshotted.add(folder.id);
        const first = this.exclusive(folder, () => this.takeCheckpoint(folder, 'session_open')).catch((e: unknown) => {
          console.error(`checkpoints: the first snapshot of ${folder.path} failed:`, e);
          return null;
        });
        folder.first = first;
        const stop = this.reportProgress(sessionId, folder, 'background');
        void first.finally(() => {
          stop();
          if (folder.first === first) folder.first = null;
        });
      }
    }
  }

  /** A session closed: its folders are no longer watched once no open session uses them. */
  sessionClosed(sessionId: string): void {
    for (const folder of this.byReal.values()) {
      if (!folder.sessions.delete(sessionId) || folder.sessions.size > 0 || folder.running.size > 0) continue;
      this.unwatch(folder);
    }
  }

  /** Folders snapshotted by this process (a session opening again does not snapshot them again). */
  private readonly snapshotted = new Set<string>();

  private watch(folder: Folder): void {
    if (folder.feed || this.disposed) return;
    folder.feed = new FolderFeed(folder.path, (root, onEvent, opts) => this.host.watch(root, onEvent, opts), {
      ignore: this.settings().excludes.map((e) => e.replace(/\/$/, '')),
    });
  }

  private unwatch(folder: Folder): void {
    folder.feed?.dispose();
    folder.feed = null;
  }

  /** Takes a checkpoint of a folder now (after whatever is queued on it). */
  async checkpoint(path: string, kind = 'manual'): Promise<CheckpointRow> {
    const folder = await this.folder(path);
    return this.exclusive(folder, () => this.takeCheckpoint(folder, kind));
  }

  /** Resolves once every queued snapshot and restore has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.starting.values()].map((p) => p.catch(() => {})));
    await Promise.all([...this.ending]);
    for (const folder of this.byReal.values()) await folder.queue;
  }

  // ───────────── the turn lifecycle ─────────────

  turnStarting(turn: TurnInfo): Promise<void> {
    const key = `${turn.sessionId}\0${turn.promptId}`;
    let proceeded = false;
    // Once the turn goes ahead (its snapshots done, or too long), the wait is no longer Switchboard's.
    const progresses: Array<() => void> = [];
    let goAhead: () => void = () => {};
    const ahead = new Promise<void>((resolve) => (goAhead = resolve));
    const started = (async () => {
      if (this.disposed || !this.store.available || !(await this.status()).available) return [];
      const roots = [...new Set(turn.roots)];
      const folders = (await Promise.all(roots.map((r) => this.folder(r).catch(() => null)))).filter((f): f is Folder => f !== null);
      const unique = [...new Map(folders.map((f) => [f.id, f])).values()];
      let waiting = unique.length;
      const settled = () => {
        if (--waiting <= 0) goAhead();
      };
      if (waiting === 0) goAhead();
      return Promise.all(
        unique.map(async (folder) => {
          const turnId = randomUUID();
          this.rows().insertTurn({ id: turnId, sessionId: turn.sessionId, promptId: turn.promptId, folderId: folder.id, startedAt: Date.now() });
          folder.running.set(turnId, turn.sessionId);
          folder.sessions.add(turn.sessionId);
          this.watch(folder);
          this.snapshotted.add(folder.id);
          const first = folder.first;
          if (first && (await this.firstInTime(turn.sessionId, folder, first))) {
            settled();
            const cp = await first;
            if (cp) this.rows().setTurn(turnId, { before_id: cp.id });
            else this.rows().setTurn(turnId, { error: 'the checkpoint before the turn failed (the first snapshot of the folder)' });
            this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: turn.sessionId, turnId });
            return { folder, turnId };
          }
          if (first) {
            // The folder's first snapshot is still being taken (the session opened moments ago): the prompt goes
            // now, the session says the snapshot is still running, and that snapshot is the turn's "before",
            // marked late (a file the agent changes before the snapshot reads it shows as already so).
            settled();
            const cp = await first.finally(this.reportProgress(turn.sessionId, folder, 'turn_went'));
            // What the watch saw change while that snapshot ran: those files may have been read before or after.
            const during = [...(folder.feed?.reported() ?? [])].sort();
            const list = during.slice(0, 3).join(', ') + (during.length > 3 ? ` and ${during.length - 3} more` : '');
            this.turnNotices.set(
              turnId,
              `This turn started before the folder's first snapshot was done: a file it changed before the snapshot read it may not show as changed.${during.length > 0 ? ` Seen changing meanwhile: ${list}.` : ''}`,
            );
            if (cp) this.rows().setTurn(turnId, { before_id: cp.id, before_late: 1 });
            else this.rows().setTurn(turnId, { error: 'the checkpoint before the turn failed (the first snapshot of the folder)' });
            this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: turn.sessionId, turnId });
            return { folder, turnId };
          }
          const progress = this.reportProgress(turn.sessionId, folder, 'before_turn');
          progresses.push(progress);
          if (proceeded) progress();
          try {
            const cp = await this.exclusive(folder, () => this.takeCheckpoint(folder, 'turn_start')).finally(progress);
            this.rows().setTurn(turnId, proceeded ? { before_id: cp.id, before_late: 1 } : { before_id: cp.id });
          } catch (e) {
            this.rows().setTurn(turnId, { error: `the checkpoint before the turn failed: ${errorText(e)}` });
          } finally {
            settled();
          }
          this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: turn.sessionId, turnId });
          return { folder, turnId };
        }),
      );
    })();
    this.starting.set(key, started);
    const done = started.then(
      (turns) => {
        if (this.starting.get(key) === started) this.started.set(key, turns);
      },
      (e: unknown) => console.error('checkpoint before a turn failed:', e),
    );
    // A full snapshot of a huge folder can take long: past this, the turn goes ahead (and says so).
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        proceeded = true;
        for (const p of progresses) p();
        resolve();
      }, this.options.beforeWaitMs ?? BEFORE_WAIT_MS);
    });
    return Promise.race([done, ahead, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Tells the session how the folder's snapshot goes (files expected, percent) until the returned function
   * is called: at once for a background snapshot or one a turn went ahead of, after a moment for one a
   * turn waits on (a snapshot of a few changes is done before anyone could read it).
   */
  private reportProgress(sessionId: string, folder: Folder, phase: 'background' | 'before_turn' | 'turn_went'): () => void {
    const startedAt = Date.now();
    let done = false;
    let shown = false;
    if (!this.lastCount.has(folder.id) && !this.counting.has(folder.id)) {
      const counting = countFiles(folder.path, this.settings().excludes).catch(() => null);
      this.counting.set(folder.id, counting);
      void counting.then((n) => {
        if (n !== null && !this.lastCount.has(folder.id)) this.lastCount.set(folder.id, n);
        this.counting.delete(folder.id);
      });
    }
    const emit = (end: boolean) => {
      const p = folder.progress;
      const total = p?.total ?? this.lastCount.get(folder.id) ?? null;
      const percent = p && total ? Math.min(99, Math.floor((p.files / total) * 100)) : null;
      shown = true;
      this.bus.emit('checkpoints.snapshotting', { sessionId, folder: folder.path, files: total, percent: end ? 100 : percent, phase, startedAt, done: end });
    };
    const timer = setInterval(() => emit(false), PROGRESS_MS);
    timer.unref();
    if (phase !== 'before_turn') emit(false);
    return () => {
      if (done) return;
      done = true;
      clearInterval(timer);
      if (shown) emit(true);
    };
  }

  /**
   * Whether the folder's first snapshot, running as a turn starts, is done in time for the turn to wait for it:
   * the folder holds at most SMALL_FOLDER_FILES files (counted only that far) and the snapshot ends within
   * FIRST_WAIT_MS. The session shows the wait as Switchboard's ("Snapshotting…"), never as the agent's.
   */
  private async firstInTime(sessionId: string, folder: Folder, first: Promise<unknown>): Promise<boolean> {
    const known = this.lastCount.get(folder.id);
    const count = known ?? (await countFiles(folder.path, this.settings().excludes, SMALL_FOLDER_FILES).catch(() => Infinity));
    if (count > SMALL_FOLDER_FILES) return false;
    const stop = this.reportProgress(sessionId, folder, 'before_turn');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), FIRST_WAIT_MS)));
    return Promise.race([first.then(() => true), timeout]).finally(() => {
      clearTimeout(timer);
      stop();
    });
  }

  /** Folders being counted for the progress of their first snapshot. */
  private readonly counting = new Map<string, Promise<number | null>>();

  turnEnded(turn: TurnInfo): void {
    const key = `${turn.sessionId}\0${turn.promptId}`;
    const started = this.starting.get(key);
    if (!started) return;
    this.starting.delete(key);
    const endedAt = Date.now();
    const finish = (turns: Array<{ folder: Folder; turnId: string }>) =>
      Promise.all(
        turns.map(async ({ folder, turnId }) => {
          // Not running any more from now on (a rewind right after the turn is allowed)…
          folder.running.delete(turnId);
          this.rows().setTurn(turnId, { ended_at: endedAt });
          // …and the "after" snapshot is queued on the folder before any later turn's "before".
          await this.exclusive(folder, async () => {
            try {
              // Spawning git blocks for milliseconds: the events of the turn's last output go out first.
              await new Promise((resolve) => setImmediate(resolve));
              const cp = await this.takeCheckpoint(folder, 'turn_end');
              this.rows().setTurn(turnId, { after_id: cp.id });
              const missed = this.missedWatch.get(folder.id);
              this.missedWatch.delete(folder.id);
              if (missed) {
                const list = missed.slice(0, 3).join(', ') + (missed.length > 3 ? ` and ${missed.length - 3} more` : '');
                this.turnNotices.set(
                  turnId,
                  `Switchboard's watch of the folder missed changes to ${list}. The check after the turn found them, so they are in this turn's changes, though some may have been made before it started.`,
                );
              }
            } catch (e) {
              this.rows().setTurn(turnId, { error: `the checkpoint after the turn failed: ${errorText(e)}` });
            }
          });
          // The change set is read now: whether the turn changed anything decides other turns' overlap notes.
          await this.tellRecorded(turnId);
          this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: turn.sessionId, turnId });
        }),
      );
    const ready = this.started.get(key);
    this.started.delete(key);
    if (ready) for (const { folder, turnId } of ready) folder.running.delete(turnId);
    // A microtask: the turn's end is not held up, and it still runs before a next turn's first await.
    const ending = (ready ? new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => finish(ready)) : started.then(finish)).then(
      () => {},
      (e: unknown) => console.error('checkpoint after a turn failed:', e),
    );
    this.ending.add(ending);
    void ending.finally(() => this.ending.delete(ending));
  }

  /** Listens for turns whose checkpoints are recorded (history makes their changed paths searchable). */
  onTurnRecorded(listener: TurnRecordedListener): Disposable {
    this.recordedListeners.add(listener);
    return toDisposable(() => void this.recordedListeners.delete(listener));
  }

  private async tellRecorded(turnId: string): Promise<void> {
    const row = this.store.available ? this.rows().turn(turnId) : undefined;
    if (!row) return;
    const view = await this.turnView(row);
    if (this.recordedListeners.size === 0) return;
    // Read right before telling (no await in between): a later turn's prompt cannot be sent before its row exists.
    const next = this.rows().nextTurnStart(row.session_id, row.started_at, row.id);
    for (const listener of this.recordedListeners) {
      try {
        listener(view, next);
      } catch (e) {
        console.error('a listener of recorded turns failed:', e);
      }
    }
  }

  // ───────────── reading changes ─────────────

  private checkpointRow(id: string): CheckpointRow {
    const cp = this.rows().checkpoint(id);
    if (!cp) throw new IpcFailure('not_found', `no checkpoint ${id} (it may have been pruned)`);
    return cp;
  }

  private async changesBetween(folder: Folder, from: CheckpointRow, to: CheckpointRow): Promise<ChangeSet> {
    const key = `${from.id}:${to.id}`;
    const cached = this.changeCache.get(key);
    if (cached) return cached;
    const set = await diffSnapshots(folder.repo, from, to);
    if (this.changeCache.size > 100) this.changeCache.delete(this.changeCache.keys().next().value!);
    this.changeCache.set(key, set);
    return set;
  }

  private async turnView(t: TurnRow): Promise<TurnCheckpoint> {
    const rows = this.rows();
    let changes = rows.cachedChanges(t);
    let error = t.error;
    if (!changes && t.before_id && t.after_id) {
      try {
        const folder = await this.folder(t.path);
        changes = await this.changesBetween(folder, this.checkpointRow(t.before_id), this.checkpointRow(t.after_id));
        rows.setTurn(t.id, { changes_json: JSON.stringify(changes) });
      } catch (e) {
        error = `the turn's changes could not be read: ${errorText(e)}`;
      }
    }
    const state: TurnCheckpoint['state'] = t.ended_at === null ? 'running' : changes ? 'recorded' : error || !t.before_id ? 'failed' : 'recording';
    return {
      id: t.id,
      sessionId: t.session_id,
      promptId: t.prompt_id,
      folderId: t.folder_id,
      folder: t.path,
      folderMissing: !(await isDirectory(t.path)),
      startedAt: t.started_at,
      endedAt: t.ended_at,
      beforeLate: t.before_late === 1,
      state,
      error: state === 'failed' ? (error ?? 'the checkpoint before the turn is missing (pruned?)') : null,
      changes,
      // Only a turn that changed something can have another session's changes mixed in.
      overlaps: changes && changes.files.length === 0 ? [] : rows.overlapping(t.folder_id, t.session_id, t.started_at, t.ended_at ?? Date.now()),
      notice: rows.turnNotice(t.id) ?? this.turnNotices.get(t.id) ?? null,
    };
  }

  async listTurns(sessionId: string): Promise<TurnCheckpoint[]> {
    const turns: TurnCheckpoint[] = [];
    for (const t of this.rows().turnsOfSession(sessionId)) turns.push(await this.turnView(t));
    return turns;
  }

  /**
   * Everything a session changed, per folder, from before its first turn to the folder as it is now (a
   * snapshot taken here, unless a turn runs in it: then up to the last recorded turn), so that a revert or a
   * hand edit since shows; `editedSince`: the files that changed after the agent's last turn.
   */
  async sessionChanges(
    sessionId: string,
  ): Promise<{ folders: Array<{ folderId: string; folder: string; folderMissing: boolean; changes: ChangeSet; editedSince: string[] }> }> {
    const byFolder = new Map<string, TurnRow[]>();
    for (const t of this.rows().turnsOfSession(sessionId)) {
      if (!byFolder.has(t.folder_id)) byFolder.set(t.folder_id, []);
      byFolder.get(t.folder_id)!.push(t);
    }
    const folders: Array<{ folderId: string; folder: string; folderMissing: boolean; changes: ChangeSet; editedSince: string[] }> = [];
    for (const [folderId, turns] of byFolder) {
      const first = turns.find((t) => t.before_id);
      const last = [...turns].reverse().find((t) => t.after_id);
      if (!first?.before_id || !last?.after_id) continue;
      const folder = await this.folder(turns[0]!.path);
      const missing = !(await isDirectory(folder.path));
      if (!missing) this.watches.add(folder.path);
      const lastAfter = this.checkpointRow(last.after_id);
      const now = missing || folder.running.size > 0 ? lastAfter : await this.exclusive(folder, () => this.currentCheckpoint(folder));
      const editedSince = now.tree === lastAfter.tree ? [] : (await this.changedEntries(folder.repo, lastAfter.tree, now.tree)).map((e) => e.path);
      folders.push({ folderId, folder: folder.path, folderMissing: missing, changes: await this.changesBetween(folder, this.checkpointRow(first.before_id), now), editedSince });
    }
    return { folders };
  }

  /** A checkpoint of the folder as it is now: the latest one when nothing changed since (no new row), else a new one. Inside `exclusive`. */
  private async currentCheckpoint(folder: Folder): Promise<CheckpointRow> {
    const snap = await folder.repo.snapshot();
    const latest = this.rows().checkpointIds(folder.id).at(-1);
    const row = latest ? this.rows().checkpoint(latest.id) : undefined;
    if (row && row.tree === snap.tree) return row;
    const fresh: CheckpointRow = { id: randomUUID(), folderId: folder.id, tree: snap.tree, large: snap.large, kind: 'view', createdAt: Date.now() };
    await folder.repo.keep(fresh.id, fresh.tree);
    this.rows().insertCheckpoint(fresh);
    return fresh;
  }

  private async pair(fromId: string, toId: string): Promise<{ folder: Folder; from: CheckpointRow; to: CheckpointRow }> {
    const from = this.checkpointRow(fromId);
    const to = this.checkpointRow(toId);
    if (from.folderId !== to.folderId) throw new IpcFailure('invalid_params', 'the two checkpoints are of different folders');
    return { folder: await this.folderById(from.folderId), from, to };
  }

  private async entryAt(repo: ShadowRepo, tree: string, path: string): Promise<TreeEntry | null> {
    const out = (await repo.git.run(['ls-tree', '-z', '--full-tree', tree, '--', path])).stdout.toString('utf8');
    for (const rec of out.split('\0')) {
      const tab = rec.indexOf('\t');
      if (tab < 0 || rec.slice(tab + 1) !== path) continue;
      const [mode, type, sha] = rec.slice(0, tab).split(' ');
      if (type === 'blob') return { mode: mode!, sha: sha! };
    }
    return null;
  }

  async fileDiff(fromId: string, toId: string, path: string): Promise<FileDiff> {
    const { folder, from, to } = await this.pair(fromId, toId);
    const set = await this.changesBetween(folder, from, to);
    const file = set.files.find((f) => f.path === path);
    if (!file) throw new IpcFailure('not_found', `${path} did not change between these checkpoints`);
    if (notKept(file)) return { file, oldText: null, newText: null, hunks: [] };
    const [a, b] = await Promise.all([this.entryAt(folder.repo, from.tree, file.oldPath ?? path), this.entryAt(folder.repo, to.tree, path)]);
    const [ab, bb] = await Promise.all([a ? folder.repo.blob(a.sha) : Buffer.alloc(0), b ? folder.repo.blob(b.sha) : Buffer.alloc(0)]);
    if (file.binary || isBinary(ab) || isBinary(bb)) return { file: { ...file, binary: true }, oldText: null, newText: null, hunks: [] };
    const oldText = ab.toString('utf8');
    const newText = bb.toString('utf8');
    return { file, oldText: a ? oldText : null, newText: b ? newText : null, hunks: await hunksOf(folder.repo, a?.sha ?? null, b?.sha ?? null, oldText, newText) };
  }

  // ───────────── restores ─────────────

  private refuseWhileRunning(folder: Folder): void {
    const [sessionId] = folder.running.values();
    if (sessionId === undefined) return;
    const other = this.rows().overlapping(folder.id, '', Date.now(), Date.now())[0];
    throw new IpcFailure('conflict', `A turn is running in ${folder.path}${other ? ` ('${other.label}')` : ''}: stop the turn first.`);
  }

  /** Paths that differ between two trees, each with its entry on both sides. */
  private async changedEntries(repo: ShadowRepo, a: string, b: string): Promise<Array<{ path: string; a: TreeEntry | null; b: TreeEntry | null }>> {
    if (a === b) return [];
    const out = (await repo.git.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', a, b])).stdout.toString('utf8');
    const tokens = out.split('\0');
    const list: Array<{ path: string; a: TreeEntry | null; b: TreeEntry | null }> = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (!t.startsWith(':')) continue;
      const [am, bm, as, bs] = t.slice(1).split(' ') as [string, string, string, string];
      const path = tokens[++i]!;
      list.push({ path, a: /^0+$/.test(am) ? null : { mode: am, sha: as }, b: /^0+$/.test(bm) ? null : { mode: bm, sha: bs } });
    }
    return list;
  }

  /**
   * Snapshot, plan, apply, snapshot: the restore is a pair of checkpoints, so it can be undone. The plan is
   * recorded before the folder is touched (a pending restore), so one cut short is finished at the next
   * start (recoverInterrupted); paths also go into a journal, so temporary files of a restore cut short are
   * cleaned up by the next one.
   */
  private async restore(
    folder: Folder,
    kind: Restore['kind'],
    label: string,
    turnId: string | null,
    items: (pre: CheckpointRow) => Promise<{ items: RestoreItem[]; refused?: RestoreReport['refused']; statOnly?: PlanStep[] }>,
  ): Promise<RestoreReport & { preId: string }> {
    this.refuseWhileRunning(folder);
    // A past session's folder that is gone is not brought back by writing its files again.
    if (!(await isDirectory(folder.path))) throw new IpcFailure('not_found', `${folder.path} no longer exists: its changes can be reviewed, not restored.`);
    const report = await this.exclusive(folder, async () => {
      this.refuseWhileRunning(folder);
      const journal = join(folder.repo.dir, 'restore-journal.json');
      const left = await readFile(journal, 'utf8').catch(() => null);
      const fs = await this.host.files([folder.path]);
      if (left) await fs.removeTempFiles(JSON.parse(left) as string[]).catch(() => {});
      const pre = await this.takeCheckpoint(folder, 'restore_pre');
      const { items: list, refused = [], statOnly = [] } = await items(pre);
      const planned = await planRestore(folder.repo, fs, list, await folder.repo.lsTree(pre.tree), byPath(pre.large));
      const seen = new Set(planned.map((p) => p.path));
      const plan = [...planned, ...statOnly.filter((p) => !seen.has(p.path))];
      // Merged texts become objects, so the stored plan says exactly what each path gets.
      for (const p of plan) if ('merged' in p && p.merged && p.entry) p.entry = { mode: p.entry.mode, sha: await folder.repo.hashObject(p.merged) };
      const pendingId = randomUUID();
      const stored: StoredStep[] = plan.map((p) => ('refused' in p ? p : { path: p.path, action: p.action, entry: p.entry }));
      this.rows().insertPending({ id: pendingId, folderId: folder.id, kind, label, turnId, preId: pre.id, plan: stored });
      await writeFile(journal, JSON.stringify(plan.map((p) => p.path)));
      const done = await applyPlan(folder.repo, fs, plan);
      await rm(journal, { force: true });
      const result: RestoreReport & { preId: string } = { restoreId: null, applied: done.applied, refused: [...refused, ...done.refused], preId: pre.id };
      if (done.applied.length > 0) {
        const post = await this.takeCheckpoint(folder, 'restore_post');
        result.restoreId = randomUUID();
        const { preId: _pre, ...report } = result;
        this.store.db.transaction(() => {
          this.rows().insertRestore({ id: result.restoreId!, folderId: folder.id, kind, label, preId: pre.id, postId: post.id, report, turnId });
          this.rows().deletePending(pendingId);
        })();
      } else this.rows().deletePending(pendingId);
      return result;
    });
    this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: null, turnId: null });
    return report;
  }

  /**
   * Restores cut short (Switchboard was killed or crashed mid-way) are finished now: each path the plan
   * had not reached yet, and still as it was before the restore, gets what the plan said; a path changed
   * since is left as it is. The user is told (app.notice now, and a notice on the turn and the restore).
   */
  async recoverInterrupted(): Promise<string[]> {
    if (!this.store.available || !(await this.status()).available) return [];
    // The app may have been closed while the status was read (a quick quit).
    if (!this.store.available) return [];
    const notices: string[] = [];
    for (const p of this.rows().pending()) {
      try {
        const notice = await this.finishPending(p);
        if (notice) notices.push(notice);
      } catch (e) {
        console.error('an interrupted restore could not be finished:', e);
        const message = `A ${p.kind} ("${p.label}") was cut short when Switchboard stopped, and could not be finished: ${errorText(e)}. Check the folder's files.`;
        this.rows().deletePending(p.id);
        this.bus.emit('app.notice', { level: 'error', message });
        notices.push(message);
      }
    }
    return notices;
  }

  private async finishPending(p: PendingRestoreRow): Promise<string | null> {
    const rows = this.rows();
    const pre = rows.checkpoint(p.pre_id);
    const folderRow = rows.folder(p.folder_id);
    if (!pre || !folderRow || !(await isDirectory(folderRow.path))) {
      rows.deletePending(p.id);
      return null;
    }
    const folder = await this.folder(folderRow.path);
    const steps = JSON.parse(p.plan_json) as StoredStep[];
    const result = await this.exclusive(folder, async () => {
      const fs = await this.host.files([folder.path]);
      await fs.removeTempFiles(steps.map((s) => s.path)).catch(() => {});
      const now = await this.takeCheckpoint(folder, 'restore_recover');
      const [nowTree, preTree] = await Promise.all([folder.repo.lsTree(now.tree), folder.repo.lsTree(pre.tree)]);
      const nowLarge = byPath(now.large);
      const preLarge = byPath(pre.large);
      const reached: RestoreReport['applied'] = [];
      const todo: PlanStep[] = [];
      const refused: RestoreReport['refused'] = [];
      for (const step of steps) {
        if ('refused' in step) {
          refused.push({ path: step.path, reason: step.refused });
          continue;
        }
        const cur = nowTree.get(step.path) ?? null;
        const curLarge = nowLarge.get(step.path);
        if (step.entry === null ? cur === null && !curLarge : sameEntry(cur, step.entry)) {
          reached.push({ path: step.path, action: step.action });
          continue;
        }
        const was = preTree.get(step.path) ?? null;
        const wasLarge = preLarge.get(step.path);
        const untouched = sameEntry(cur, was) && (wasLarge === undefined ? curLarge === undefined : curLarge !== undefined && curLarge.size === wasLarge.size && curLarge.mtimeMs === wasLarge.mtimeMs);
        if (untouched) todo.push(step);
        else refused.push({ path: step.path, reason: 'changed after the restore was cut short; left as it is' });
      }
      const done = await applyPlan(folder.repo, fs, todo);
      const applied = [...reached, ...done.applied];
      const allRefused = [...refused, ...done.refused];
      const notice =
        `The ${p.kind} "${p.label}" in ${folder.path} was cut short when Switchboard stopped (${reached.length} of ${steps.length - refused.length} files done). ` +
        `It was finished at this start: ${done.applied.length} more put back${allRefused.length > 0 ? `, ${allRefused.length} left as they were` : ''}. It can be undone like any restore.`;
      const post = await this.takeCheckpoint(folder, 'restore_post');
      const restoreId = randomUUID();
      this.store.db.transaction(() => {
        rows.insertRestore({ id: restoreId, folderId: folder.id, kind: p.kind, label: `${p.label} (finished after an interruption)`, preId: pre.id, postId: post.id, report: { restoreId, applied, refused: allRefused }, turnId: p.turn_id, notice });
        rows.deletePending(p.id);
      })();
      return notice;
    });
    this.changeCache.clear();
    this.bus.emit('app.notice', { level: 'warning', message: result });
    this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: null, turnId: p.turn_id });
    return result;
  }

  async revert(fromId: string, toId: string, scope: { kind: 'all' } | { kind: 'file'; path: string } | { kind: 'hunk'; path: string; hunk: number }): Promise<RestoreReport> {
    const { folder, from, to } = await this.pair(fromId, toId);
    const set = await this.changesBetween(folder, from, to);
    let label = 'Revert the changes';
    let hunkTarget: { path: string; entry: TreeEntry | null; base: TreeEntry | null } | null = null;
    let paths: Set<string> | null = null;
    if (scope.kind !== 'all') {
      const file = set.files.find((f) => f.path === scope.path);
      if (!file) throw new IpcFailure('not_found', `${scope.path} did not change between these checkpoints`);
      paths = new Set([file.path, ...(file.oldPath ? [file.oldPath] : [])]);
      label = `Revert ${file.path}`;
      if (scope.kind === 'hunk') {
        if (notKept(file)) throw new IpcFailure('invalid_params', `${scope.path} has no line hunks to revert: its content was not kept`);
        const diff = await this.fileDiff(fromId, toId, scope.path);
        const hunk = diff.hunks[scope.hunk];
        if (!hunk) throw new IpcFailure('not_found', `${scope.path} has no hunk ${scope.hunk}`);
        label = `Revert a change in ${file.path}`;
        const base = await this.entryAt(folder.repo, to.tree, file.path);
        if (diff.hunks.length === 1 && (file.status === 'added' || file.status === 'deleted' || file.status === 'renamed')) {
          // The only hunk of an added or deleted file is the whole file.
        } else {
          if (diff.oldText === null || diff.newText === null || !base) throw new IpcFailure('invalid_params', `${scope.path} has no line hunks to revert`);
          const sha = await folder.repo.hashObject(Buffer.from(revertHunk(diff.oldText, diff.newText, hunk), 'utf8'));
          hunkTarget = { path: file.path, entry: { mode: base.mode, sha }, base };
        }
      }
    }
    const turn = this.rows().turnOfPair(from.id, to.id);
    return this.restore(folder, 'revert', label, turn?.id ?? null, async (pre) => {
      if (hunkTarget) return { items: [{ path: hunkTarget.path, base: hunkTarget.base, target: hunkTarget.entry }] };
      const [entries, fromTree] = await Promise.all([this.changedEntries(folder.repo, from.tree, to.tree), folder.repo.lsTree(from.tree)]);
      return {
        items: entries.filter((e) => !paths || paths.has(e.path)).map((e) => ({ path: e.path, base: e.b, target: e.a })),
        statOnly: planStatOnly(to.large, { large: from.large, tree: fromTree }, byPath(pre.large), paths),
      };
    });
  }

  async rewind(turnId: string): Promise<RestoreReport> {
    const turn = this.rows().turn(turnId);
    if (!turn) throw new IpcFailure('not_found', `no turn ${turnId}`);
    if (!turn.before_id) throw new IpcFailure('not_found', 'the checkpoint before this turn is missing (pruned, or it failed)');
    const target = this.checkpointRow(turn.before_id);
    const folder = await this.folder(turn.path);
    return this.restore(folder, 'rewind', `Rewind to before the turn of ${new Date(turn.started_at).toISOString()}`, turnId, async (pre) => {
      // What the folder was last known as: changes made since then are the user's, kept or merged.
      const latest = this.rows().checkpointIds(folder.id).filter((c) => c.id !== pre.id);
      const base = latest.length > 0 ? this.checkpointRow(latest.at(-1)!.id) : pre;
      const [entries, baseTree, targetTree] = await Promise.all([this.changedEntries(folder.repo, pre.tree, target.tree), folder.repo.lsTree(base.tree), folder.repo.lsTree(target.tree)]);
      return {
        items: entries.map((e) => ({ path: e.path, base: baseTree.get(e.path) ?? null, target: e.b })),
        // Files recorded by size only that the turns added (ignored ones, a planted hook…) go too.
        statOnly: planStatOnly(base.large, { large: target.large, tree: targetTree }, byPath(pre.large), null),
      };
    });
  }

  listRestores(folderId: string): { restores: Restore[] } {
    return { restores: this.rows().restores(folderId) };
  }

  async undoRestore(restoreId: string): Promise<RestoreReport> {
    const r = this.rows().restore(restoreId);
    if (!r) throw new IpcFailure('not_found', `no restore ${restoreId}`);
    if (r.undone_by) throw new IpcFailure('conflict', 'this restore was already undone');
    const folder = await this.folderById(r.folder_id);
    const pre = this.checkpointRow(r.pre_id);
    const post = this.checkpointRow(r.post_id);
    const report = await this.restore(folder, 'undo', 'Undo a restore', null, async () => {
      const entries = await this.changedEntries(folder.repo, post.tree, pre.tree);
      return { items: entries.map((e) => ({ path: e.path, base: e.a, target: e.b })) };
    });
    if (report.restoreId) this.rows().markUndone(restoreId, report.restoreId);
    return { restoreId: report.restoreId, applied: report.applied, refused: report.refused };
  }

  // ───────────── disk ─────────────

  async folderList(): Promise<CheckpointFolder[]> {
    return Promise.all(
      this.rows()
        .folders()
        .map(async (f) => ({
          id: f.id,
          path: f.path,
          bytes: await new ShadowRepo(join(this.root, f.id), f.path, 0, [], this.host).size(),
          checkpoints: f.checkpoints,
          oldestAt: f.oldest,
          newestAt: f.newest,
        })),
    );
  }

  async deleteFolder(folderId: string): Promise<void> {
    const folder = await this.folderById(folderId);
    this.refuseWhileRunning(folder);
    await this.exclusive(folder, async () => {
      this.refuseWhileRunning(folder);
      this.rows().deleteFolder(folderId);
      await removeShadow(folder.repo.dir);
      this.byReal.delete(folder.path);
      for (const [k, v] of this.folders) if ((await v.catch(() => null))?.id === folderId) this.folders.delete(k);
    });
    this.bus.emit('checkpoints.changed', { folderId, sessionId: null, turnId: null });
  }

  /** Drops checkpoints older than the retention period, then the oldest until each folder fits its size cap. */
  async prune(now = Date.now()): Promise<number> {
    if (!this.store.available) return 0;
    const s = this.settings();
    const cutoff = now - s.retentionDays * 24 * 60 * 60 * 1000;
    let removed = 0;
    for (const f of this.rows().folders()) {
      const folder = await this.folder(f.path).catch(() => null);
      if (!folder) continue;
      removed += await this.exclusive(folder, async () => {
        const rows = this.rows();
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
    if (removed > 0) this.changeCache.clear();
    return removed;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.watches.dispose();
    this.stopTimers();
    void this.settingsLink.dispose();
    await this.idle();
    for (const folder of this.byReal.values()) {
      this.unwatch(folder);
      await folder.repo.flush().catch((e: unknown) => console.error(`checkpoints: saving the scan state of ${folder.path} failed:`, e));
    }
  }
}
