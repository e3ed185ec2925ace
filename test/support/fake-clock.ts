import type { Clock, TimerHandle } from '../../src/main/core/base/clock';

interface Timer {
  id: number;
  at: number;
  fn: () => void | Promise<void>;
  every: number | null;
}

/**
 * A clock that moves only when told (`advance`): its timers run in time order, each one's promise (a
 * supervisor's sample) awaited before the next, so that a test sees minutes of timers in milliseconds and
 * the same on an idle or a loaded machine.
 */
export class FakeClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, ms, null);
  }

  setInterval(fn: () => void | Promise<void>, ms: number): TimerHandle {
    return this.add(fn, ms, Math.max(1, ms));
  }

  /** Timers waiting to run. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves the time on by `ms`, running every timer due meanwhile, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.time = Math.max(this.time, due.at);
      if (due.every === null) this.timers = this.timers.filter((t) => t !== due);
      else due.at += due.every;
      await due.fn();
      // What the timer set off (promise callbacks, I/O already done) settles before the next one.
      await new Promise((r) => setImmediate(r));
    }
    this.time = end;
  }

  /** `advance` for code whose timers do all their work at once (a unit with no I/O): nothing is awaited. */
  advanceSync(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.time = Math.max(this.time, due.at);
      if (due.every === null) this.timers = this.timers.filter((t) => t !== due);
      else due.at += due.every;
      void due.fn();
    }
    this.time = end;
  }

  private add(fn: () => void | Promise<void>, ms: number, every: number | null): TimerHandle {
    const timer: Timer = { id: this.nextId++, at: this.time + Math.max(0, ms), fn, every };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((t) => t !== timer)) };
  }
}
