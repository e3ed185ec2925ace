import { describe, expect, it } from 'vitest';
import { HeldUpdates, notStoredYet } from '../../../src/main/core/acp/connection/held-updates';

/**
 * What an agent taken back from a killed Switchboard wrote for a session not reopened yet (the end-to-end case is
 * test/e2e/remote-reclaim.test.ts): held by session, bounded, and handed on without what the store already holds.
 */
describe('updates held until their session is reopened', () => {
  it('are kept by session, in order, and handed on once', () => {
    const held = new HeldUpdates();
    expect(held.keep('a', 'a1')).toBe(true);
    expect(held.keep('b', 'b1')).toBe(true);
    expect(held.keep('a', 'a2')).toBe(true);
    expect(held.take('a')).toEqual(['a1', 'a2']);
    expect(held.take('a')).toEqual([]);
    expect(held.take('b')).toEqual(['b1']);
  });

  it('are bounded: a flood for sessions never reopened is not kept', () => {
    const held = new HeldUpdates();
    const big = 'x'.repeat(1024 * 1024);
    let kept = 0;
    for (let i = 0; i < 20; i++) if (held.keep('a', big)) kept++;
    expect(kept).toBeLessThan(20);
    expect(held.take('a').length).toBe(kept);
    for (let i = 0; i < 200; i++) held.keep(`s${i}`, 'u');
    expect(held.keep('one-more', 'u')).toBe(false);
  });

  it('leave out the lines the killed Switchboard stored but had not acknowledged (sent again by the host)', () => {
    expect(notStoredYet(['u1', 'u2', 'u3'], ['u2', 'u3', 'u4', 'u5'])).toEqual(['u4', 'u5']);
    expect(notStoredYet(['u1', 'u2'], ['u3', 'u4'])).toEqual(['u3', 'u4']);
    expect(notStoredYet([], ['u1'])).toEqual(['u1']);
    expect(notStoredYet(['u1', 'u2'], ['u1', 'u2'])).toEqual([]);
  });
});
