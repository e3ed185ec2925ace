import type { Clock, TimerHandle } from '../base/clock';
import type { Disposable } from '../base/lifecycle';
import { specOf, type TaskRow, type TaskStore } from './task-store';

/** How often the branches of tasks that run on a new commit are read (one cheap `git rev-parse` per task). */
export const BRANCH_POLL_MS = 30_000;
/** A branch must stay on one commit this long before it runs the task: a push of many commits is one run. */
export const BRANCH_QUIET_MS = 60_000;

/** The commit a branch of the repository that holds `folder` is on (null: no such branch, or no repository). */
export type BranchHead = (folder: string, branch: string, hostId: string | undefined) => Promise<string | null>;

export interface BranchWatcherOptions {
  store: TaskStore;
  clock: Clock;
  head: BranchHead;
  /** The branch moved and stayed: one run of the task. */
  due(task: TaskRow): void;
}

interface Seen {
  branch: string;
  /** The commit the last run (or the first look) was for. */
  base: string | null;
  /** A newer commit, and since when the branch has stayed on it. */
  moved: { sha: string; since: number } | null;
}

/**
 * Runs tasks when their branch moves, while the app is open: each poll reads each watched branch; a new commit
 * that stays for a quiet spell queues one run, and no further run while that one has not ended (the newest
 * commit then makes one more). The first look at a task's branch only notes where it is; where it was seen is kept in
 * the store, so a commit made while the app was closed runs the task after a start (once it has stayed).
 */
export class BranchWatcher implements Disposable {
  private readonly seen = new Map<string, Seen>();
  private timer: TimerHandle | null = null;
  private polling: Promise<void> | null = null;

  constructor(private readonly o: BranchWatcherOptions) {}

  start(): void {
    this.timer ??= this.o.clock.setInterval(() => this.poll(), BRANCH_POLL_MS);
    void this.poll();
  }

  /** Reads every watched branch once (a poll already under way is joined, not doubled). */
  poll(): Promise<void> {
    this.polling ??= this.readAll().finally(() => (this.polling = null));
    return this.polling;
  }

  private async readAll(): Promise<void> {
    const watched = new Set<string>();
    for (const task of this.o.store.tasks()) {
      const spec = specOf(task.spec);
      if (!spec?.onCommit) continue;
      watched.add(task.id);
      let sha: string | null;
      try {
        sha = await this.o.head(spec.folder, spec.onCommit.branch, spec.place === 'ssh' ? spec.hostId : undefined);
      } catch {
        sha = null;
      }
      this.look(task, spec.onCommit.branch, sha);
    }
    for (const id of this.seen.keys()) if (!watched.has(id)) this.seen.delete(id);
  }

  private look(task: TaskRow, branch: string, sha: string | null): void {
    const now = this.o.clock.now();
    let seen = this.seen.get(task.id);
    if (!seen || seen.branch !== branch) {
      // Where it was when the app last looked (commits made while it was closed count), else where it is now.
      const kept = this.o.store.branchSeen(task.id);
      seen = { branch, base: kept?.branch === branch ? kept.sha : sha, moved: null };
      this.seen.set(task.id, seen);
      if (seen.base === sha) {
        this.keep(task.id, branch, sha);
        return;
      }
    }
    if (sha === null) return;
    if (seen.base === null) {
      seen.base = sha;
      this.keep(task.id, branch, sha);
      return;
    }
    if (sha === seen.base) {
      seen.moved = null;
      return;
    }
    if (seen.moved?.sha !== sha) seen.moved = { sha, since: now };
    if (now - seen.moved.since < BRANCH_QUIET_MS || this.inFlight(task.id)) return;
    seen = { branch, base: sha, moved: null };
    this.seen.set(task.id, seen);
    this.keep(task.id, branch, sha);
    this.o.due(task);
  }

  private keep(taskId: string, branch: string, sha: string | null): void {
    if (sha !== null) this.o.store.setBranchSeen(taskId, branch, sha);
  }

  /** A run of the task this watcher queued has not ended: the next waits for it. */
  private inFlight(taskId: string): boolean {
    return this.o.store.runsIn('queued', 'held', 'running', 'paused').some((r) => r.task_id === taskId && r.trig === 'commit');
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = null;
  }
}
