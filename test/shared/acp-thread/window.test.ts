import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { applyEvents, createThread, threadEntries, threadLength, threadTail, toolIndexUpTo, type ThreadEvent, type ThreadState } from '../../../src/shared/acp-thread';

const up = (update: unknown): ThreadEvent => ({ type: 'update', update: update as SessionUpdate });
const chunk = (text: string, messageId: string): ThreadEvent => up({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } });
const tool = (id: string, status: string): ThreadEvent => up({ sessionUpdate: 'tool_call', toolCallId: id, title: id, kind: 'read', status });
const plan = (content: string): ThreadEvent => up({ sessionUpdate: 'plan', entries: [{ content, priority: 'medium', status: 'pending' }] });

/** A thread of two turns with a plan, tool calls and messages: 12 entries. */
function history(): ThreadState {
  return applyEvents(createThread(), [
    { type: 'prompt', promptId: 'p1', content: [{ type: 'text', text: 'first' }] },
    chunk('one', 'm1'),
    tool('t1', 'completed'),
    chunk('two', 'm2'),
    { type: 'turn_end', promptId: 'p1', stopReason: 'end_turn', error: null },
    { type: 'prompt', promptId: 'p2', content: [{ type: 'text', text: 'second' }] },
    plan('step A'),
    tool('t2', 'in_progress'),
    chunk('three', 'm3'),
    tool('t3', 'in_progress'),
    chunk('four', 'm4'),
    tool('t4', 'pending'),
    chunk('five', 'm5'),
  ]);
}

/** A view's thread as the session view builds it: the tail, then the whole toolIndex as of the tail (sessions.toolIndex). */
function view(state: ThreadState, tailCount: number): ThreadState {
  const tail = threadTail(state, tailCount);
  return { ...tail, toolIndex: { ...toolIndexUpTo(state.toolIndex, threadLength(state)), ...tail.toolIndex } };
}

/** Folds `events` into the whole thread and into its tail: the tail holds the same entries, and says what it missed. */
function both(tailCount: number, events: ThreadEvent[]) {
  const full = applyEvents(history(), events);
  const missed: Array<[number, number]> = [];
  const tail = applyEvents(view(history(), tailCount), events, (from, to) => missed.push([from, to]));
  return { full, tail, missed };
}

describe('acp-thread: a view holding the thread tail', () => {
  it('the tail keeps the thread indices; pages come from the whole thread', () => {
    const full = history();
    const tail = threadTail(full, 4);
    expect(threadLength(tail)).toBe(threadLength(full));
    expect(tail.firstIndex).toBe(full.entries.length - 4);
    expect(tail.entries).toEqual(full.entries.slice(-4));
    // Only the tail's tool calls are indexed in it (the whole index grows with the thread).
    expect(tail.toolIndex).toEqual({ t3: full.toolIndex.t3, t4: full.toolIndex.t4 });
    expect(threadTail(full, 20)).toBe(full);
    expect(threadEntries(full, 2, 3)).toEqual(full.entries.slice(2, 5));
    expect(threadEntries(full, 10, 50)).toEqual(full.entries.slice(10));
    expect(threadEntries(tail, 0, 3)).toEqual([]);
  });

  it('the whole toolIndex as of a length leaves out the tool calls added after it', () => {
    const earlier = history();
    const asItWas = { ...earlier.toolIndex };
    const later = applyEvents(earlier, [tool('t5', 'pending'), chunk('six', 'm6'), tool('t6', 'pending')]);
    expect(toolIndexUpTo(later.toolIndex, threadLength(earlier))).toEqual(asItWas);
    // The earlier state shares the index it grew into (no copy per new tool call), so this is how a view gets its own.
    expect(toolIndexUpTo(earlier.toolIndex, threadLength(earlier))).toEqual(asItWas);
    expect(Object.keys(later.toolIndex)).toEqual(['t1', 't2', 't3', 't4', 't5', 't6']);
  });

  it('folds what it holds as the whole thread does; changes to earlier entries are reported, not guessed', () => {
    const { full, tail, missed } = both(3, [
      chunk(' more', 'm5'),
      tool('t4', 'completed'),
      // An earlier tool call (not held) changes; the plan (not held either) is updated in place, not repeated.
      tool('t2', 'completed'),
      plan('step B'),
      chunk('six', 'm6'),
    ]);
    const first = tail.firstIndex ?? 0;
    expect(threadLength(tail)).toBe(threadLength(full));
    expect(tail.entries).toEqual(full.entries.slice(first));
    expect(full.entries.filter((e) => e.kind === 'plan')).toHaveLength(1);
    expect(missed).toEqual([
      [full.toolIndex.t2, full.toolIndex.t2! + 1],
      [full.planIndex, full.planIndex! + 1],
    ]);
    expect(tail.nextId).toBe(full.nextId);
  });

  it('a cancelled turn reports the part of the turn it does not hold', () => {
    const { full, tail, missed } = both(2, [{ type: 'cancel' }, { type: 'turn_end', promptId: 'p2', stopReason: 'cancelled', error: null }]);
    expect(tail.entries).toEqual(full.entries.slice(tail.firstIndex));
    expect(full.entries.filter((e) => e.kind === 'tool_call' && e.status === 'cancelled').map((e) => e.kind === 'tool_call' && e.toolCallId)).toEqual(['t2', 't3', 't4']);
    expect(missed[0]).toEqual([full.turn.startIndex, tail.firstIndex]);
    expect(tail.stopMarks).toEqual(full.stopMarks);
  });

  it('a new turn after the tail starts its own plan entry', () => {
    const { full, tail, missed } = both(2, [{ type: 'turn_end', promptId: 'p2', stopReason: 'end_turn', error: null }, { type: 'prompt', promptId: 'p3', content: [] }, plan('new')]);
    expect(tail.entries).toEqual(full.entries.slice(tail.firstIndex));
    expect(full.entries.filter((e) => e.kind === 'plan')).toHaveLength(2);
    expect(missed).toEqual([]);
  });
});
