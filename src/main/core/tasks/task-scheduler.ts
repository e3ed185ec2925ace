import type { Schedule } from '../../../shared/contract/tasks';
import type { Clock, TimerHandle } from '../base/clock';
import type { Disposable } from '../base/lifecycle';
import { nextRuns, runsBetween } from './schedule';
import { specOf, type TaskRow, type TaskStore } from './task-store';

/** A run found due this late (the machine slept, the app was busy) still runs; older ones are listed as missed. */
export const LATE_GRACE_MS = 15 * 60_000;
/** Timers are set at most this far ahead (a JS timer cannot wait longer than ~24.8 days; the clock may move). */
const MAX_WAIT_MS = 6 * 3_600_000;

export interface TaskSchedulerOptions {
  store: TaskStore;
  clock: Clock;
  timeZone(): string;
  /** A scheduled run is due now. */
  due(task: TaskRow, at: number): void;
  /** Runs were missed (listed for the user to run now or skip). */
  missed(): void;
}

const scheduleOf = (task: TaskRow): Schedule | null => specOf(task.spec)?.schedule ?? null;

/**
 * Runs the tasks' schedules while the app is open, on the injectable clock. Each task remembers the time up to
 * which its runs were dealt with; at start, the runs between then and now are listed as missed (the user runs
 * them or skips them), never started in a burst.
 */
export class TaskScheduler implements Disposable {
  private timer: TimerHandle | null = null;

  constructor(private readonly o: TaskSchedulerOptions) {}

  /** At start: what was missed while the app was closed is listed, then the timer is set. */
  start(): void {
    const now = this.o.clock.now();
    let missed = false;
    for (const task of this.o.store.tasks()) {
      const schedule = scheduleOf(task);
      if (schedule) {
        for (const at of this.between(schedule, task.checked_at, now)) {
          this.o.store.addMissed(task.id, at);
          missed = true;
        }
      }
      this.o.store.setChecked(task.id, now);
    }
    if (missed) this.o.missed();
    this.arm();
  }

  /** The next time any schedule runs (null: none). */
  next(): number | null {
    const now = this.o.clock.now();
    let best: number | null = null;
    for (const task of this.o.store.tasks()) {
      const schedule = scheduleOf(task);
      if (!schedule) continue;
      const [at] = this.safeNext(schedule, Math.max(task.checked_at, now));
      if (at !== undefined && (best === null || at < best)) best = at;
    }
    return best;
  }

  /** Sets the timer for the next run (after a task is saved or deleted too). */
  arm(): void {
    this.timer?.cancel();
    this.timer = null;
    const at = this.next();
    if (at === null) return;
    const wait = Math.min(MAX_WAIT_MS, Math.max(0, at - this.o.clock.now()));
    this.timer = this.o.clock.setTimeout(() => this.tick(), wait);
  }

  /** Each task's runs due since it was last looked at: the latest starts if it is not late; older ones are missed. */
  tick(): void {
    const now = this.o.clock.now();
    let missed = false;
    for (const task of this.o.store.tasks()) {
      const schedule = scheduleOf(task);
      if (!schedule) continue;
      const due = this.between(schedule, task.checked_at, now);
      this.o.store.setChecked(task.id, now);
      const latest = due.at(-1);
      if (latest === undefined) continue;
      const runs = now - latest <= LATE_GRACE_MS;
      for (const at of runs ? due.slice(0, -1) : due) {
        this.o.store.addMissed(task.id, at);
        missed = true;
      }
      if (runs) this.o.due(task, latest);
    }
    if (missed) this.o.missed();
    this.arm();
  }

  private between(schedule: Schedule, from: number, to: number): number[] {
    try {
      return runsBetween(schedule, from, to, this.o.timeZone());
    } catch {
      return [];
    }
  }

  private safeNext(schedule: Schedule, after: number): number[] {
    try {
      return nextRuns(schedule, after, 1, this.o.timeZone());
    } catch {
      return [];
    }
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = null;
  }
}
