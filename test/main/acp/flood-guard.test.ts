import { beforeEach, describe, expect, it } from 'vitest';
import { FloodGuard, floodLimits, type FloodLimits } from '../../../src/main/core/acp/connection/flood-guard';
import { parseSetting } from '../../../src/shared/contract/settings';
import { FakeClock } from '../../support/fake-clock';

/** Messages a read of a full 64 KB pipe holds (about 100 bytes each). */
const PIPE = 600;

/**
 * Flood control on a simulated agent: it writes `rate` messages a second in 10 ms steps; the reader takes
 * at most a pipe's worth each step, none while paused (the rest waits in the agent, as on a full pipe).
 * The clock is a fake one (the guard's injected clock).
 */
function simulate(limits: FloodLimits) {
  const log: string[] = [];
  let paused = false;
  const guard = new FloodGuard(
    () => limits,
    {
      pause: () => {
        paused = true;
      },
      resume: () => {
        paused = false;
      },
      throttled: (rate) => log.push(`throttled at ${clock.now()} (${rate}/s)`),
      released: () => log.push(`released at ${clock.now()}`),
    },
    clock,
  );
  let read = 0;
  let backlog = 0;
  /** Runs `ms` of the agent writing `rate` a second; returns the messages read meanwhile. */
  const run = (rate: number, ms: number): number => {
    const before = read;
    for (let t = 0; t < ms; t += 10) {
      backlog += (rate * 10) / 1000;
      if (!paused && backlog >= 1) {
        const n = Math.min(PIPE, Math.floor(backlog));
        backlog -= n;
        read += n;
        guard.take(n);
      }
      clock.advanceSync(10);
    }
    return read - before;
  };
  return { guard, log, run, backlog: () => backlog };
}

let clock: FakeClock;
beforeEach(() => {
  clock = new FakeClock(0);
});

const limits: FloodLimits = { perSecond: 5000, seconds: 5, throttlePerSecond: 1000 };

describe('flood control', () => {
  it('lets a burst through untouched, however large', () => {
    const s = simulate(limits);
    expect(s.run(50_000, 1000)).toBe(50_000); // a one-second replay of 50,000 updates
    expect(s.run(0, 3000)).toBe(0);
    expect(s.run(50_000, 1000)).toBe(50_000);
    expect(s.log).toEqual([]);
    expect(s.guard.throttled).toBe(false);
    s.guard.dispose();
  });

  it('never throttles an agent that stays under the limit', () => {
    const s = simulate(limits);
    expect(s.run(4000, 30_000)).toBe(120_000);
    expect(s.log).toEqual([]);
    s.guard.dispose();
  });

  it('throttles an agent writing 10,000 a second after five seconds, reads it at the throttled rate, and lets it go once it calms down', () => {
    const s = simulate(limits);
    const first = s.run(10_000, 7000);
    expect(s.guard.throttled).toBe(true);
    expect(s.log).toHaveLength(1);
    expect(s.log[0]).toMatch(/^throttled at 5\d{3} \(10000\/s\)$/);
    // Up to the throttle everything was read; from then on about 1,000 a second.
    expect(first).toBeGreaterThan(50_000);
    const throttled = s.run(10_000, 10_000);
    expect(throttled).toBeGreaterThan(9_000);
    expect(throttled).toBeLessThan(11_000);
    expect(s.backlog()).toBeGreaterThan(80_000); // nothing dropped: it waits in the agent
    // It stops flooding: the backlog drains at the throttled rate, then it is released.
    s.run(0, 150_000);
    expect(s.backlog()).toBeLessThan(1);
    expect(s.guard.throttled).toBe(false);
    expect(s.log[1]).toMatch(/^released at /);
    // Free again: a burst goes through at once.
    expect(s.run(50_000, 1000)).toBe(50_000);
    s.guard.dispose();
  });

  it('a quiet second in between starts the count again', () => {
    const s = simulate(limits);
    for (let i = 0; i < 5; i++) {
      s.run(10_000, 4000);
      s.run(0, 1500);
    }
    expect(s.log).toEqual([]);
    s.guard.dispose();
  });

  it('0 messages a second turns it off; bad settings fall back to the defaults', () => {
    const s = simulate({ ...limits, perSecond: 0 });
    expect(s.run(50_000, 20_000)).toBe(1_000_000);
    expect(s.log).toEqual([]);
    const settings: Record<string, unknown> = { 'agents.floodPerSecond': 'lots', 'agents.floodSeconds': -1, 'agents.floodThrottlePerSecond': 250 };
    expect(floodLimits({ get: (k) => parseSetting(k, settings[k]).value })).toEqual({ perSecond: 5000, seconds: 5, throttlePerSecond: 250 });
  });

  it('a change of the limits applies to a running agent within a second', () => {
    let current: FloodLimits = { ...limits, perSecond: 0 };
    const log: string[] = [];
    const g = new FloodGuard(() => current, { pause: () => {}, resume: () => {}, throttled: () => log.push('throttled'), released: () => log.push('released') }, clock);
    const feed = (ms: number) => {
      for (let t = 0; t < ms; t += 10) {
        g.take(100); // 10,000 a second
        clock.advanceSync(10);
      }
    };
    feed(10_000);
    expect(log).toEqual([]);
    current = { perSecond: 5000, seconds: 2, throttlePerSecond: 1000 };
    feed(4_000);
    expect(log).toEqual(['throttled']);
    current = { ...current, perSecond: 0 }; // turned off: let go
    clock.advanceSync(1000);
    expect(log).toEqual(['throttled', 'released']);
    g.dispose();
  });

  it('disposing resumes a paused reader (the agent is not left blocked)', () => {
    let paused = false;
    const g = new FloodGuard(
      () => ({ perSecond: 100, seconds: 1, throttlePerSecond: 10 }),
      { pause: () => (paused = true), resume: () => (paused = false), throttled: () => {}, released: () => {} },
      clock,
    );
    for (let i = 0; i < 300 && !g.throttled; i++) {
      g.take(10);
      clock.advanceSync(10);
    }
    expect(g.throttled).toBe(true);
    g.take(100);
    expect(paused).toBe(true);
    g.dispose();
    expect(paused).toBe(false);
  });
});
