import { afterEach, describe, expect, it, vi } from 'vitest';
import { CatchUpPace, MIN_MESSAGES, TARGET_MS } from '../../../src/main/core/history/catch-up-pace';
import { Acp, createStore, turn, type TestStore } from './acp';

// Issue 39: the index pass after a large import (and a store's catch-up at start) ran 1000 messages per turn of the
// event loop whatever they cost: about 50 ms on a free core, 250–700 ms on a loaded one, where the window waited.

const stores: TestStore[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const s of stores.splice(0)) s.close();
});

describe('the pace of the index catch-up', () => {
  it('sizes each transaction from how long the last took: slower ones make it smaller at once, faster ones grow it step by step', () => {
    const pace = new CatchUpPace();
    const first = pace.chunk;
    pace.took(TARGET_MS * 2);
    expect(pace.chunk).toBe(Math.round(first / 2));
    for (let k = 0; k < 20; k++) pace.took(TARGET_MS * 100);
    expect(pace.chunk).toBe(MIN_MESSAGES);
    const small = pace.chunk;
    pace.took(1);
    expect(pace.chunk).toBe(small * 2);
    for (let k = 0; k < 30; k++) pace.took(1);
    expect(pace.chunk).toBeLessThanOrEqual(8000);
  });

  it('on a machine where a transaction takes 400 ms, the index pass after a bulk write indexes the fewest messages a transaction may hold per turn of the event loop, and copies the log into the database as it goes', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const messages = [];
    for (let k = 0; k < 8; k++) messages.push(...turn(acp, `question ${k}`, `answer${k}word `.repeat(60), 1));
    expect(messages.length).toBeGreaterThan(5000);
    const bulk = t.history.bulkWrite();
    t.append('s1', messages, 1_000);
    const index = t.history.index();
    const pending = () => index.status().pendingMessages;
    expect(pending()).toBe(messages.length);
    // Every reading of the clock is 200 ms after the last: each catch-up transaction "takes" 400 ms or more.
    let clock = performance.now();
    vi.spyOn(performance, 'now').mockImplementation(() => (clock += 200));
    const checkpoint = vi.spyOn(t.store, 'checkpoint');
    bulk.dispose();
    const slices: number[] = [];
    for (let before = pending(); before > 0; ) {
      await new Promise((r) => setImmediate(r));
      const now = pending();
      slices.push(before - now);
      before = now;
    }
    await t.history.whenIndexed();
    // The first transaction is the pace's first guess; after it, each holds the fewest it may (not the 1000 of a fixed chunk).
    expect(Math.max(...slices.slice(2))).toBeLessThanOrEqual(MIN_MESSAGES * 1.5);
    expect(slices.length).toBeGreaterThan(6);
    expect(checkpoint.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(t.history.search({ query: 'answer7word', limit: 5, perSession: 1 }).hits).toHaveLength(1);
  });
});
