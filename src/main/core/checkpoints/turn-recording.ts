import { randomUUID } from 'node:crypto';
import type { CheckpointStatus, TurnCheckpoint } from '../../../shared/contract/checkpoints';
import type { EventBus } from '../base/event-bus';
import { toDisposable, type Disposable } from '../base/lifecycle';
import type { StoreService } from '../store/store-service';
import type { ChangeReader } from './change-reading';
import { errorText, LOCAL, type CheckpointFolders, type Folder } from './checkpoint-folders';

/**
 * Longest a turn waits for its "before" snapshot (`fullReadWaitMs`, when given: for one that reads the whole
 * folder). Past it the prompt goes, and a snapshot on this machine goes on, judging what it reads after that
 * moment by its ctime: exact unless the turn changed it first, and then the turn says which. Not shorter by
 * default: an agent that writes at once would find its first changes missing from the turn (only named).
 */
const BEFORE_WAIT_MS = 10_000;
/**
 * A folder this small has its first snapshot done in a moment: a turn that starts while it is taken waits for it
 * (at most FIRST_WAIT_MS), so that the turn's "before" is exact. A larger folder's is not waited for.
 */
const SMALL_FOLDER_FILES = 2_000;
const FIRST_WAIT_MS = 5_000;
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
  /** The host they are on (default: this machine). */
  hostId?: string;
}

/**
 * The turns of sessions: their folders watched while a session is open (with a first snapshot in the
 * background), a checkpoint before each turn (the prompt waits for it, within limits) and after it, and
 * the listeners told once a turn is recorded.
 */
export class TurnRecorder {
  /** Turns being started: their "before" snapshots (turnEnded waits for them). */
  private readonly starting = new Map<string, Promise<Array<{ folder: Folder; turnId: string }>>>();
  /** Turns whose "before" snapshots are taken, until they end. */
  private readonly started = new Map<string, Array<{ folder: Folder; turnId: string }>>();
  /** "After" snapshots being queued. */
  private readonly ending = new Set<Promise<void>>();
  private readonly recordedListeners = new Set<TurnRecordedListener>();

  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus,
    private readonly folders: CheckpointFolders,
    private readonly reader: ChangeReader,
    private readonly status: () => Promise<CheckpointStatus>,
    private readonly waits: { beforeWaitMs?: number; fullReadWaitMs?: number } = {},
  ) {}

  /** Resolves once every turn's snapshots being taken are done. */
  async idle(): Promise<void> {
    await Promise.all([...this.starting.values()].map((p) => p.catch(() => {})));
    await Promise.all([...this.ending]);
  }

  /**
   * A session opened (or a turn started) in these folders: they are watched from now on, so that snapshots
   * read only what changed, and a folder never snapshotted by this process gets its first snapshot now, in
   * the background, with progress in the session.
   */
  async sessionOpened(sessionId: string, roots: readonly string[], hostId = LOCAL): Promise<void> {
    if (this.folders.disposed || !this.store.available || !(await this.status()).available) return;
    for (const root of new Set(roots)) {
      const folder = await this.folders.get(root, hostId).catch(() => null);
      if (!folder || !(await folder.site.isDirectory(folder.path))) continue;
      folder.sessions.add(sessionId);
      this.folders.watch(folder);
      if (!this.folders.snapshotted.has(folder.id) && !folder.first) {
        this.folders.snapshotted.add(folder.id);
        // Whether a turn may wait for the first snapshot: counted now, ahead of the snapshot's own reads
        // (counted when the turn starts, it queued behind them for a third of a second on 100,000 files).
        this.smallCounts.set(folder.id, folder.repo.countFiles(SMALL_FOLDER_FILES).catch(() => Infinity));
        const first = this.folders.exclusive(folder, () => this.folders.takeCheckpoint(folder, 'session_open')).catch((e: unknown) => {
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
    for (const folder of this.folders.byReal.values()) {
      if (!folder.sessions.delete(sessionId) || folder.sessions.size > 0 || folder.running.size > 0) continue;
      this.folders.unwatch(folder);
    }
  }

  turnStarting(turn: TurnInfo): Promise<void> {
    const key = `${turn.sessionId}\0${turn.promptId}`;
    let proceeded = false;
    /** When the turn went ahead of its "before" snapshots (ns since the epoch). */
    let wentAtNs: bigint | null = null;
    const wentAt = () => wentAtNs;
    const began = Date.now();
    let go: () => void = () => {};
    let fullTimer: NodeJS.Timeout | undefined;
    // Told (synchronously, before reading) when a "before" snapshot reads the whole folder.
    const onFullRead = () => {
      const wait = this.waits.fullReadWaitMs;
      if (wait !== undefined) fullTimer ??= setTimeout(() => go(), Math.max(0, wait - (Date.now() - began)));
    };
    // Once the turn goes ahead (its snapshots done, or too long), the wait is no longer Switchboard's.
    const progresses: Array<() => void> = [];
    let goAhead: () => void = () => {};
    const ahead = new Promise<void>((resolve) => (goAhead = resolve));
    const started = (async () => {
      if (this.folders.disposed || !this.store.available || !(await this.status()).available) return [];
      const roots = [...new Set(turn.roots)];
      const folders = (await Promise.all(roots.map((r) => this.folders.get(r, turn.hostId ?? LOCAL).catch(() => null)))).filter((f): f is Folder => f !== null);
      const unique = [...new Map(folders.map((f) => [f.id, f])).values()];
      let waiting = unique.length;
      const settled = () => {
        if (--waiting <= 0) goAhead();
      };
      if (waiting === 0) goAhead();
      return Promise.all(
        unique.map(async (folder) => {
          const turnId = randomUUID();
          this.folders.rows().insertTurn({ id: turnId, sessionId: turn.sessionId, promptId: turn.promptId, folderId: folder.id, startedAt: Date.now() });
          folder.running.set(turnId, turn.sessionId);
          folder.sessions.add(turn.sessionId);
          this.folders.watch(folder);
          this.folders.snapshotted.add(folder.id);
          const first = folder.first;
          if (first && (await this.firstInTime(turn.sessionId, folder, first))) {
            settled();
            const cp = await first;
            if (cp) this.folders.rows().setTurn(turnId, { before_id: cp.id });
            else this.folders.rows().setTurn(turnId, { error: 'the checkpoint before the turn failed (the first snapshot of the folder)' });
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
            const during = (folder.watched ? await folder.repo.reported().catch(() => []) : []).sort();
            const list = during.slice(0, 3).join(', ') + (during.length > 3 ? ` and ${during.length - 3} more` : '');
            this.reader.turnNotices.set(
              turnId,
              `This turn started before the folder's first snapshot was done: a file it changed before the snapshot read it may not show as changed.${during.length > 0 ? ` Seen changing meanwhile: ${list}.` : ''}`,
            );
            if (cp) this.folders.rows().setTurn(turnId, { before_id: cp.id, before_late: 1 });
            else this.folders.rows().setTurn(turnId, { error: 'the checkpoint before the turn failed (the first snapshot of the folder)' });
            this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: turn.sessionId, turnId });
            return { folder, turnId };
          }
          const progress = this.reportProgress(turn.sessionId, folder, 'before_turn');
          progresses.push(progress);
          if (proceeded) progress();
          try {
            const cp = await this.folders.exclusive(folder, () => this.folders.takeCheckpoint(folder, 'turn_start', { wentAt, onFullRead })).finally(progress);
            // Gone ahead: exact still when nothing it read after that had changed since (the store can tell).
            const late = proceeded && (!cp.unsure || cp.unsure.length > 0);
            this.folders.rows().setTurn(turnId, late ? { before_id: cp.id, before_late: 1 } : { before_id: cp.id });
            if (late && cp.unsure) {
              const list = cp.unsure.slice(0, 3).join(', ') + (cp.unsure.length > 3 ? ` and ${cp.unsure.length - 3} more` : '');
              this.reader.turnNotices.set(
                turnId,
                `This turn started before its "before" snapshot was done, and ${list} changed meanwhile: the turn's changes there may not show, or show as made before it.`,
              );
            }
          } catch (e) {
            this.folders.rows().setTurn(turnId, { error: `the checkpoint before the turn failed: ${errorText(e)}` });
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
      go = () => {
        if (proceeded) return;
        wentAtNs = BigInt(Date.now()) * 1_000_000n;
        proceeded = true;
        for (const p of progresses) p();
        resolve();
      };
      timer = setTimeout(go, this.waits.beforeWaitMs ?? BEFORE_WAIT_MS);
    });
    return Promise.race([done, ahead, late]).finally(() => {
      clearTimeout(timer);
      clearTimeout(fullTimer);
      go = () => {};
    });
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
    if (!this.folders.lastCount.has(folder.id) && !this.counting.has(folder.id)) {
      const counting = folder.repo.countFiles().catch(() => null);
      this.counting.set(folder.id, counting);
      void counting.then((n) => {
        if (n !== null && !this.folders.lastCount.has(folder.id)) this.folders.lastCount.set(folder.id, n);
        this.counting.delete(folder.id);
      });
    }
    const emit = (end: boolean) => {
      const p = folder.progress;
      const total = p?.total ?? this.folders.lastCount.get(folder.id) ?? null;
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
    const known = this.folders.lastCount.get(folder.id) ?? (await this.smallCounts.get(folder.id));
    const count = known ?? (await folder.repo.countFiles(SMALL_FOLDER_FILES).catch(() => Infinity));
    if (count > SMALL_FOLDER_FILES) return false;
    const stop = this.reportProgress(sessionId, folder, 'before_turn');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), FIRST_WAIT_MS)));
    return Promise.race([first.then(() => true), timeout]).finally(() => {
      clearTimeout(timer);
      stop();
    });
  }

  /** Each folder's file count up to SMALL_FOLDER_FILES, taken when its first snapshot started. */
  private readonly smallCounts = new Map<string, Promise<number>>();

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
          this.folders.rows().setTurn(turnId, { ended_at: endedAt });
          // …and the "after" snapshot is queued on the folder before any later turn's "before".
          await this.folders.exclusive(folder, async () => {
            try {
              // Spawning git blocks for milliseconds: the events of the turn's last output go out first.
              await new Promise((resolve) => setImmediate(resolve));
              const cp = await this.folders.takeCheckpoint(folder, 'turn_end');
              this.folders.rows().setTurn(turnId, { after_id: cp.id });
              const missed = this.folders.missedWatch.get(folder.id);
              this.folders.missedWatch.delete(folder.id);
              if (missed) {
                const list = missed.slice(0, 3).join(', ') + (missed.length > 3 ? ` and ${missed.length - 3} more` : '');
                this.reader.turnNotices.set(
                  turnId,
                  `Switchboard's watch of the folder missed changes to ${list}. The check after the turn found them, so they are in this turn's changes, though some may have been made before it started.`,
                );
              }
            } catch (e) {
              this.folders.rows().setTurn(turnId, { error: `the checkpoint after the turn failed: ${errorText(e)}` });
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
    const row = this.store.available ? this.folders.rows().turn(turnId) : undefined;
    if (!row) return;
    const view = await this.reader.turnView(row);
    if (this.recordedListeners.size === 0) return;
    // Read right before telling (no await in between): a later turn's prompt cannot be sent before its row exists.
    const next = this.folders.rows().nextTurnStart(row.session_id, row.started_at, row.id);
    for (const listener of this.recordedListeners) {
      try {
        listener(view, next);
      } catch (e) {
        console.error('a listener of recorded turns failed:', e);
      }
    }
  }
}
