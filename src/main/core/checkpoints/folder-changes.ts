import { randomBytes } from 'node:crypto';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Disposable } from '../base/lifecycle';
import { TEMP_PREFIX, type ConfinedFiles } from '../host/files';
import type { Host, WatchEvent } from '../host/host';

/** What the next snapshot of a folder must read: these paths (and what is under them), or all of it, and why. */
export type FolderChanges = { paths: string[] } | { full: string };

/** A batch this large may hide a dropped one: the kernel's queue overflows silently under @parcel/watcher. */
const BURST = 4000;
/** Longest wait for the watch to report the sync file (then the snapshot reads the whole folder). */
const SYNC_MS = 3000;

/**
 * The paths of one folder that changed since its last snapshot, as its watch reports them, so that a
 * snapshot reads only those. Whenever the watch could have missed something — before the first snapshot,
 * when it reports it lost track, errs or cannot start, after a burst large enough to overflow the kernel's
 * queue, or when it does not answer a sync in time — the next snapshot reads the whole folder, and the log
 * says why.
 *
 * Before handing the paths over, the feed writes a sync file (TEMP_PREFIX, which snapshots never record)
 * into the folder and waits until the watch reports it: the watch reports in order, so every change made
 * before the snapshot began is in hand by then (as Watchman's cookies do). The sync file is written through
 * the host's confined files, rooted where the folder was when the feed started: a folder (or a parent of it)
 * swapped for a symlink since then is refused at the write, and the snapshot reads the whole folder.
 */
export class FolderFeed implements Disposable {
  private pending = new Set<string>();
  private doubt: string | null = 'first snapshot of the folder';
  private watching: Promise<Disposable | null>;
  /** The watch lost track or went silent: it is started anew before the next snapshot reads the folder. */
  private stale = false;
  private readonly files: Promise<ConfinedFiles>;
  private readonly syncs = new Map<string, (seen: boolean) => void>();
  private disposed = false;

  constructor(
    readonly root: string,
    private readonly watch: Host['watch'],
    /** The folder's host's confined files (the sync file is written through them). */
    files: Host['files'],
    private readonly options: { ignore?: readonly string[] } = {},
  ) {
    this.files = files([root]);
    this.files.catch(() => {});
    this.watching = this.subscribe();
  }

  private subscribe(): Promise<Disposable | null> {
    return this.watch(this.root, (e) => this.onEvent(e), { ignore: ['.git', ...(this.options.ignore ?? [])] }).catch((e: unknown) => {
      this.doubt = `the folder cannot be watched (${e instanceof Error ? e.message : String(e)})`;
      return null;
    });
  }

  /**
   * A watch that lost track (its folder removed or replaced) or went silent would cost every later snapshot
   * the sync's wait and a read of the whole folder. The old watch is stopped first (the watcher shares one
   * watch per folder), and the new one is running before the snapshot that follows reads the whole folder,
   * so nothing done in between is missed.
   */
  private async rewatch(): Promise<void> {
    this.stale = false;
    await this.watching.then((d) => d?.dispose());
    if (this.disposed) return;
    this.watching = this.subscribe();
    await this.watching;
  }

  private onEvent(event: WatchEvent): void {
    if (this.disposed) return;
    if (event.kind === 'rescan') {
      this.doubt = `the watch lost track (${event.reason})`;
      this.stale = true;
      // A sync in flight will not be seen by this watch.
      for (const resolve of this.syncs.values()) resolve(false);
      return;
    }
    if (event.changes.length >= BURST) this.doubt = `a burst of ${event.changes.length} changes (the watch may have dropped some)`;
    for (const { path } of event.changes) {
      const rel = relative(this.root, path);
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
      const name = rel.slice(rel.lastIndexOf(sep) + 1);
      if (name.startsWith(TEMP_PREFIX)) {
        this.syncs.get(name)?.(true);
        continue;
      }
      this.pending.add(sep === '/' ? rel : rel.split(sep).join('/'));
    }
  }

  /** Whether the watch has caught up with everything done in the folder before now. */
  private async sync(): Promise<string | null> {
    const name = `${TEMP_PREFIX}sync-${randomBytes(6).toString('hex')}`;
    const file = join(this.root, name);
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<boolean>((resolve) => {
      this.syncs.set(name, resolve);
      timer = setTimeout(() => resolve(false), SYNC_MS);
    });
    let files: ConfinedFiles;
    try {
      files = await this.files;
      // Moved before the feed could hold it: the folder's path no longer names the folder that is watched.
      if (files.roots[0] !== this.root) throw new Error(`refused: ${this.root} now leads to ${files.roots[0]}`);
      await files.writeFile(file, '');
    } catch (e) {
      clearTimeout(timer);
      this.syncs.delete(name);
      const why = `the sync file could not be written (${e instanceof Error ? e.message : String(e)})`;
      console.warn(`checkpoints: ${this.root}: ${why}; the next snapshot reads the whole folder`);
      return why;
    }
    const ok = await seen;
    clearTimeout(timer);
    this.syncs.delete(name);
    await files.removeFile(file).catch(() => {});
    if (ok) return null;
    this.stale = true;
    return `the watch did not report a sync within ${SYNC_MS / 1000} s`;
  }

  /**
   * What the next snapshot reads; from this call on, changes count towards the snapshot after it (a change
   * during the snapshot is read again next time, which is harmless).
   */
  async take(): Promise<FolderChanges> {
    let watch = await this.watching;
    const late = watch && !this.doubt ? await this.sync() : null;
    const doubt = this.doubt ?? late;
    if (watch && this.stale) {
      await this.rewatch();
      watch = await this.watching;
    }
    this.doubt = watch ? null : this.doubt;
    const paths = [...this.pending];
    this.pending = new Set();
    return doubt ? { full: doubt } : { paths };
  }

  /** Whether the next snapshot will read the whole folder (the watch is not trusted yet). */
  doubtful(): boolean {
    return this.doubt !== null;
  }

  /** The next snapshot reads the whole folder (a snapshot failed half-way, the rules changed…). */
  rescan(reason: string): void {
    this.doubt ??= reason;
  }

  /** Changes reported and not yet taken (the verification after a turn tells them from missed ones). */
  reported(): ReadonlySet<string> {
    return this.pending;
  }

  dispose(): void {
    this.disposed = true;
    for (const resolve of this.syncs.values()) resolve(false);
    void this.watching.then((d) => d?.dispose());
  }
}
