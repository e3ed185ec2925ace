import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeSearch, openSearch, pollSoon, pushUndo, syncHistory, UNDO_MS, useHistory } from '../../../src/renderer/src/features/history/state';
import { FakeApi } from '../support/fake-api';
import { sessionInfo } from '../support/fake-session';

describe('history state (features/history/state)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    useHistory.setState(useHistory.getInitialState(), true);
  });
  afterEach(() => {
    vi.runOnlyPendingTimers();
    vi.useRealTimers();
  });

  it('keeps the last three undo notices, each for UNDO_MS', () => {
    for (let i = 1; i <= 4; i++) pushUndo([`s${i}`], `Deleted ${i}`);
    expect(useHistory.getState().undo.map((u) => u.message)).toEqual(['Deleted 2', 'Deleted 3', 'Deleted 4']);
    vi.advanceTimersByTime(UNDO_MS - 1);
    expect(useHistory.getState().undo).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(useHistory.getState().undo).toEqual([]);
  });

  it('opens and closes the search', () => {
    openSearch();
    expect(useHistory.getState().searchOpen).toBe(true);
    closeSearch();
    expect(useHistory.getState().searchOpen).toBe(false);
  });

  it('polls with one timer however many views ask', () => {
    pollSoon();
    pollSoon();
    pollSoon(10);
    vi.advanceTimersByTime(1500);
    expect(useHistory.getState().activity).toBe(1);
    vi.advanceTimersByTime(5000);
    expect(useHistory.getState().activity).toBe(1);
  });

  it('lists refetch when the history changes, and at most every second while sessions are active', () => {
    const api = new FakeApi();
    syncHistory(api);
    syncHistory(api);
    api.emit('history.changed', { sessionIds: ['s1'], reason: 'rename' });
    expect(useHistory.getState().version).toBe(1);
    for (let i = 0; i < 20; i++) api.emit('session.state', sessionInfo({ status: i % 2 ? 'working' : 'idle' }));
    expect(useHistory.getState().activity).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(useHistory.getState().activity).toBe(1);
    api.emit('session.state', sessionInfo());
    vi.advanceTimersByTime(1000);
    expect(useHistory.getState().activity).toBe(2);
  });
});
