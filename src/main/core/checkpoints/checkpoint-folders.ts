import { createHash, randomUUID } from 'node:crypto';
import { IpcFailure } from '../../../shared/contract';
import type { StoreService } from '../store/store-service';
import type { Host } from '../host/host';
import { CheckpointRows, type CheckpointRow } from './checkpoint-rows';
import type { CheckpointSettings } from './checkpoint-settings';
import { siteOf, type CheckpointSite } from './checkpoint-sites';
import type { Snapshot, SnapshotOptions } from './shadow-store';
import type { ShadowStore } from './shadow-store';

/** A folder with checkpoints, as this process holds it. */
export interface Folder {
  id: string;
  /** The host the folder is on ('local': this machine). */
  hostId: string;
  path: string;
  /** Its host, and how the folder is reached there. */
  site: CheckpointSite;
  repo: ShadowStore;
  /** Everything that touches the shadow index runs here, one at a time. */
  queue: Promise<unknown>;
  /** Turns running in the folder: turn id → session id. */
  running: Map<string, string>;
  /** Open sessions whose folder this is (while there is one, the folder is watched). */
  sessions: Set<string>;
  /** Whether the folder is watched (by its shadow store, beside its files): if not, snapshots read it all. */
  watched: boolean;
  /** The first snapshot, taken in the background when a session opens, until it is done. */
  first: Promise<CheckpointRow | null> | null;
  /** Progress of the snapshot being taken (files recorded, files expected), for sessions that ask. */
  progress: { files: number; total: number | null } | null;
}

/** Snapshot kinds whose checkpoint is checked against the whole folder's stat (the watch is not trusted alone). */
const VERIFIED = new Set(['turn_end', 'restore_pre', 'restore_post', 'restore_recover']);

export const LOCAL = 'local';

/** How folders are told apart in this process: by host and real path (a local folder by its path alone). */
export const folderKey = (hostId: string, path: string): string => (hostId === LOCAL ? path : `${hostId}\0${path}`);

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The folders with checkpoints, one per real path, each with its shadow repository, its queue (snapshots and
 * restores of a folder run one at a time) and its watch; and the snapshots themselves.
 */
export class CheckpointFolders {
  private readonly folders = new Map<string, Promise<Folder>>();
  /** By folderKey of the host and the real path. */
  readonly byReal = new Map<string, Folder>();
  /** Files the last snapshot of each folder recorded (what progress counts towards). */
  readonly lastCount = new Map<string, number>();
  /** Why each folder was last read whole (said once while it stays so). */
  private readonly loggedReason = new Map<string, string>();
  /** Folders whose watch missed a change (found by a verification), with the paths: told on the turn. */
  readonly missedWatch = new Map<string, string[]>();
  /** Folders snapshotted by this process (a session opening again does not snapshot them again). */
  readonly snapshotted = new Set<string>();
  disposed = false;

  constructor(
    private readonly store: StoreService,
    readonly root: string,
    private readonly localHost: Host,
    private readonly settings: () => CheckpointSettings,
    /** The other hosts, while they are connected. */
    private readonly hosts: (hostId: string) => Host | undefined = () => undefined,
  ) {}

  /** Where folders of this host are checkpointed; throws when the host is not connected. */
  site(hostId: string): CheckpointSite {
    const host = hostId === LOCAL ? this.localHost : this.hosts(hostId);
    if (!host) throw new IpcFailure('unavailable', `the host ${hostId.replace(/^ssh:/, '')} is not connected: its folders' checkpoints are kept there`);
    return siteOf(host, this.root);
  }

  /** Whether the folder is there on its host now (an unreachable host's is not). */
  async isDirectory(hostId: string, path: string): Promise<boolean> {
    try {
      return await this.site(hostId).isDirectory(path);
    } catch {
      return false;
    }
  }

  rows(): CheckpointRows {
    return new CheckpointRows(this.store.db);
  }

  get(path: string, hostId = LOCAL): Promise<Folder> {
    const key = folderKey(hostId, path);
    const cached = this.folders.get(key);
    if (cached) return cached;
    const made = (async () => {
      const site = this.site(hostId);
      // A folder gone from disk keeps its recorded checkpoints readable (history of past sessions).
      const real = await site.realFolder(path).catch((e: unknown) => {
        if (this.rows().folderByPath(path, hostId)) return path;
        throw e;
      });
      // One Folder (one queue) per real path, however it was reached.
      const known = this.byReal.get(folderKey(hostId, real));
      if (known) return known;
      const id = createHash('sha256')
        .update(hostId === LOCAL ? real : `${hostId}\0${real}`)
        .digest('hex')
        .slice(0, 16);
      this.rows().ensureFolder(id, real, hostId);
      const s = this.settings();
      const folder: Folder = {
        id,
        hostId,
        path: real,
        site,
        repo: site.store(id, real, s.maxFileBytes, s.excludes),
        queue: Promise.resolve(),
        running: new Map(),
        sessions: new Set(),
        watched: false,
        first: null,
        progress: null,
      };
      this.byReal.set(folderKey(hostId, real), folder);
      return folder;
    })();
    this.folders.set(key, made);
    made.catch(() => this.folders.delete(key));
    return made;
  }

  async byId(id: string): Promise<Folder> {
    const row = this.rows().folder(id);
    if (!row) throw new IpcFailure('not_found', `no checkpoints for folder ${id}`);
    return this.get(row.path, row.host_id);
  }

  /** Forgets a deleted folder (its rows and shadow repository are gone). */
  async forget(folder: Folder): Promise<void> {
    this.byReal.delete(folderKey(folder.hostId, folder.path));
    for (const [k, v] of this.folders) if ((await v.catch(() => null))?.id === folder.id) this.folders.delete(k);
  }

  /** Runs `fn` after everything queued on the folder (snapshots share one index). */
  exclusive<T>(folder: Folder, fn: () => Promise<T>): Promise<T> {
    const run = folder.queue.then(fn, fn);
    folder.queue = run.catch(() => {});
    return run;
  }

  /**
   * Snapshot + row; call inside `exclusive`. `before`: of a turn's "before" snapshot, when the turn went ahead
   * (then `unsure` says what may already be the turn's; absent where the store cannot tell), and who to tell
   * when it reads the whole folder.
   */
  async takeCheckpoint(folder: Folder, kind: string, before?: Pick<SnapshotOptions, 'wentAt' | 'onFullRead'>): Promise<CheckpointRow & { unsure?: string[] }> {
    const id = randomUUID();
    const snap = await this.snapshot(folder, kind, id, before ?? {});
    const row: CheckpointRow = { id, folderId: folder.id, tree: snap.tree, large: snap.large, kind, createdAt: Date.now() };
    this.rows().insertCheckpoint(row);
    return snap.unsure ? { ...row, unsure: snap.unsure } : row;
  }

  /**
   * A snapshot of the folder, kept as checkpoint `keep`: only what its watch reported when it is watched and
   * trusted, else all of it (the log says why); the checkpoints a turn's review rests on are checked against
   * the whole folder's stat. One call to the store (on an SSH host, one request: the watch is there).
   */
  private async snapshot(folder: Folder, kind: string, keep: string, before: Pick<SnapshotOptions, 'wentAt' | 'onFullRead'>): Promise<Snapshot> {
    const watched = folder.watched;
    folder.progress = { files: 0, total: this.lastCount.get(folder.id) ?? null };
    try {
      const snap = await folder.repo.snapshot({
        keep,
        verify: VERIFIED.has(kind) && watched,
        ...before,
        onProgress: (files) => {
          if (folder.progress) folder.progress.files = files;
        },
      });
      if (snap.how.kind === 'full' && watched && this.loggedReason.get(folder.id) !== snap.how.reason) {
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
    } finally {
      folder.progress = null;
    }
  }

  /** Watches the folder from now on, so that snapshots read only what changed. */
  watch(folder: Folder): void {
    if (folder.watched || this.disposed) return;
    folder.watched = true;
    folder.repo.watch(this.settings().excludes.map((e) => e.replace(/\/$/, '')));
  }

  unwatch(folder: Folder): void {
    if (!folder.watched) return;
    folder.watched = false;
    folder.repo.unwatch();
  }
}
