import { SUPERVISOR_SETTINGS } from '../../../../shared/contract/supervisor';
import type { SettingsReader } from '../../settings/settings-service';
import { systemClock, type Clock, type TimerHandle } from '../../base/clock';
import type { Disposable } from '../../base/lifecycle';

export interface FloodLimits {
  /** An agent writing more messages a second than this… (0: never throttle) */
  perSecond: number;
  /** …for this many whole seconds in a row is flooding. */
  seconds: number;
  /** A flooding agent's output is then read at this many messages a second. */
  throttlePerSecond: number;
}

/** The limits in force (settings agents.flood*). */
export function floodLimits(settings: SettingsReader): FloodLimits {
  const num = (name: 'floodPerSecond' | 'floodSeconds' | 'floodThrottlePerSecond') => settings.get(SUPERVISOR_SETTINGS[name]);
  return { perSecond: num('floodPerSecond'), seconds: num('floodSeconds'), throttlePerSecond: num('floodThrottlePerSecond') };
}

export interface FloodEvents {
  /** Stop reading the agent's stdout (the pipe fills and the agent's writes wait). */
  pause(): void;
  resume(): void;
  /** Throttling starts: `rate` is the agent's messages a second over the seconds that tripped it. */
  throttled(rate: number): void;
  /** The agent wrote less than the throttled rate for a while: read at full speed again. */
  released(): void;
}

/** How long a throttled agent must stay under the throttled rate to be let go. */
const CALM_MS = 2000;
/** The throttled bucket holds this much of a second's allowance (small: no bursts while throttled). */
const BUCKET_SECONDS = 0.1;

/**
 * Per-agent flood control on the messages read from its stdout. Bursts pass untouched (a session/load
 * replay, a long answer pasted at once); an agent that keeps writing more than `perSecond` messages a second
 * for `seconds` seconds is read at `throttlePerSecond` from then on, by pausing its stdout — backpressure,
 * nothing is dropped — until it calms down. The other agents and the window keep their share of the machine.
 */
export class FloodGuard implements Disposable {
  private windowStart = -1;
  private windowCount = 0;
  /** Whole seconds in a row over the limit, and their messages. */
  private overSeconds = 0;
  private overCount = 0;
  private throttledAt: number | null = null;
  private tokens = 0;
  private tokensAt = 0;
  private lastPause = 0;
  private paused = false;
  private resumeTimer: TimerHandle | null = null;
  private calmTimer: TimerHandle | null = null;
  private disposed = false;
  /** The limits in force, read again every second (a settings change applies to running agents). */
  private limits: FloodLimits;

  constructor(
    private readonly readLimits: () => FloodLimits,
    private readonly events: FloodEvents,
    private readonly clock: Clock = systemClock,
  ) {
    this.limits = readLimits();
  }

  /** What tripped the throttle, and the rate it reads at. */
  get current(): FloodLimits {
    return this.limits;
  }

  get throttled(): boolean {
    return this.throttledAt !== null;
  }

  /** `n` more messages were read. */
  take(n: number): void {
    if (n <= 0 || this.disposed) return;
    const now = this.clock.now();
    if (this.limits.perSecond <= 0 && this.throttledAt === null) {
      // Off: look again at most once a second.
      if (now - this.windowStart >= 1000) {
        this.windowStart = now;
        this.limits = this.readLimits();
      }
      return;
    }
    if (this.throttledAt === null) this.count(n, now);
    else this.spend(n, now);
  }

  private count(n: number, now: number): void {
    if (this.windowStart < 0) this.windowStart = now;
    const elapsed = Math.floor((now - this.windowStart) / 1000);
    if (elapsed >= 1) {
      // The window that just closed counts only if nothing quiet came between it and now.
      if (elapsed === 1 && this.windowCount > this.limits.perSecond) {
        this.overSeconds++;
        this.overCount += this.windowCount;
      } else {
        this.overSeconds = 0;
        this.overCount = 0;
      }
      this.windowStart += elapsed * 1000;
      this.windowCount = 0;
      this.limits = this.readLimits();
    }
    this.windowCount += n;
    if (this.overSeconds >= Math.max(1, this.limits.seconds)) this.throttle(now);
  }

  private throttle(now: number): void {
    const rate = Math.round(this.overCount / this.overSeconds);
    this.throttledAt = now;
    this.tokens = 0;
    this.tokensAt = now;
    this.lastPause = now;
    this.overSeconds = 0;
    this.overCount = 0;
    this.windowStart = -1;
    this.windowCount = 0;
    this.calmTimer = this.clock.setInterval(() => this.checkCalm(), CALM_MS / 4);
    this.events.throttled(rate);
  }

  private spend(n: number, now: number): void {
    const rate = Math.max(1, this.limits.throttlePerSecond);
    this.tokens = Math.min(rate * BUCKET_SECONDS, this.tokens + ((now - this.tokensAt) / 1000) * rate) - n;
    this.tokensAt = now;
    if (this.tokens >= 0 || this.paused) return;
    this.paused = true;
    this.lastPause = now;
    this.events.pause();
    const waitMs = Math.max(10, Math.ceil((-this.tokens / rate) * 1000));
    this.resumeTimer = this.clock.setTimeout(() => {
      this.resumeTimer = null;
      this.paused = false;
      if (!this.disposed) this.events.resume();
    }, waitMs);
  }

  private checkCalm(): void {
    if (this.throttledAt === null) return;
    this.limits = this.readLimits();
    if (this.limits.perSecond <= 0) return this.release(); // turned off
    if (this.paused || this.clock.now() - this.lastPause < CALM_MS) return;
    this.release();
  }

  private release(): void {
    this.calmTimer?.cancel();
    this.calmTimer = null;
    this.throttledAt = null;
    this.unpause();
    this.events.released();
  }

  private unpause(): void {
    this.resumeTimer?.cancel();
    this.resumeTimer = null;
    if (!this.paused) return;
    this.paused = false;
    this.events.resume();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.calmTimer?.cancel();
    this.calmTimer = null;
    this.unpause();
  }
}
