import type { ThreadEntry, ThreadState } from './types';

/**
 * A thread seen through a window: a view holds the tail (what it shows first) and fetches earlier entries
 * page by page as they come into view (contract: sessions.state `tail`, sessions.entries).
 */

/** The thread's length, whether or not `state` holds its earliest entries. */
export const threadLength = (state: ThreadState): number => (state.firstIndex ?? 0) + state.entries.length;

/** The same thread holding only its last `count` entries (everything else kept: indices stay the thread's). */
export function threadTail(state: ThreadState, count: number): ThreadState {
  const first = state.firstIndex ?? 0;
  const keep = Math.max(0, Math.min(state.entries.length, count));
  if (keep === state.entries.length) return state;
  return { ...state, entries: state.entries.slice(state.entries.length - keep), firstIndex: first + state.entries.length - keep };
}

/** Entries [from, from + count) of the thread, as far as `state` holds them. */
export function threadEntries(state: ThreadState, from: number, count: number): ThreadEntry[] {
  const first = state.firstIndex ?? 0;
  const start = Math.max(from, first) - first;
  const end = Math.max(start, from + count - first);
  return state.entries.slice(start, end);
}
