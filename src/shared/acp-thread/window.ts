import { putIndex } from './draft';
import type { ThreadEntry, ThreadState } from './types';

/**
 * A thread seen through a window: a view holds the tail (what it shows first) and fetches earlier entries
 * page by page as they come into view (contract: sessions.state `tail`, sessions.entries).
 */

/** The thread's length, whether or not `state` holds its earliest entries. */
export const threadLength = (state: ThreadState): number => (state.firstIndex ?? 0) + state.entries.length;

/**
 * The same thread holding only its last `count` entries (indices stay the thread's). Its toolIndex keeps only
 * the tool calls it holds: the whole index grows with the thread (tens of thousands of ids), and a view gets
 * the rest (sessions.toolIndex) once it has shown the tail.
 */
export function threadTail(state: ThreadState, count: number): ThreadState {
  const first = state.firstIndex ?? 0;
  const keep = Math.max(0, Math.min(state.entries.length, count));
  if (keep === state.entries.length) return state;
  const tailFirst = first + state.entries.length - keep;
  const toolIndex: Record<string, number> = {};
  for (let i = state.entries.length - keep; i < state.entries.length; i++) {
    const e = state.entries[i]!;
    if (e.kind === 'tool_call' && state.toolIndex[e.toolCallId] === first + i) putIndex(toolIndex, e.toolCallId, first + i);
  }
  return { ...state, entries: state.entries.slice(state.entries.length - keep), firstIndex: tailFirst, toolIndex };
}

/** The entry index of tool call `toolCallId` (the toolIndex object may also name tool calls of later states). */
export function toolCallIndex(state: ThreadState, toolCallId: string): number | undefined {
  if (!Object.prototype.hasOwnProperty.call(state.toolIndex, toolCallId)) return undefined;
  const index = state.toolIndex[toolCallId]!;
  return index < threadLength(state) ? index : undefined;
}

/**
 * A thread's toolIndex as it was when the thread was `length` entries long: a tool call's index never changes
 * once it has one, so the ids of later tool calls are all that differ.
 */
export function toolIndexUpTo(toolIndex: Readonly<Record<string, number>>, length: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const id of Object.keys(toolIndex)) {
    const index = toolIndex[id]!;
    if (index < length) putIndex(out, id, index);
  }
  return out;
}

/** Entries [from, from + count) of the thread, as far as `state` holds them. */
export function threadEntries(state: ThreadState, from: number, count: number): ThreadEntry[] {
  const first = state.firstIndex ?? 0;
  const start = Math.max(from, first) - first;
  const end = Math.max(start, from + count - first);
  return state.entries.slice(start, end);
}
