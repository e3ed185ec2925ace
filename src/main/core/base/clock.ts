/**
 * Time and timers, as one injectable port: the supervisor (sampling, restart backoff, hang and idle
 * timeouts) and the flood guard read the time and schedule through it, so that a test can run minutes of
 * their time in milliseconds with a fake clock (test/support/fake-clock.ts), and on a busy machine.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms`; the handle cancels it. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Runs `fn` every `ms` (a returned promise is awaited by a fake clock before it moves on). */
  setInterval(fn: () => void | Promise<void>, ms: number): TimerHandle;
}

export interface TimerHandle {
  cancel(): void;
}

/** The real time; its timers do not keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  setInterval(fn, ms) {
    const t = setInterval(() => void fn(), ms);
    t.unref();
    return { cancel: () => clearInterval(t) };
  },
};
