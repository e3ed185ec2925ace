import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { applyEvents, createThread, threadTail, toolIndexUpTo, type ThreadEntry, type ThreadEvent, type ThreadState } from '../../../src/shared/acp-thread';

const up = (update: unknown): ThreadEvent => ({ type: 'update', update: update as SessionUpdate });
const chunk = (text: string): ThreadEvent => up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const tool = (id: string, status = 'pending'): ThreadEvent => up({ sessionUpdate: 'tool_call', toolCallId: id, title: `call ${id}`, kind: 'read', status });
const toolUpdate = (id: string, status: string): ThreadEvent => up({ sessionUpdate: 'tool_call_update', toolCallId: id, status });

const tools = (s: ThreadState, id: string) => s.entries.filter((e): e is Extract<ThreadEntry, { kind: 'tool_call' }> => e.kind === 'tool_call' && e.toolCallId === id);

/** A thread with `n` tool calls, each followed by a message. */
function long(n: number): ThreadState {
  const events: ThreadEvent[] = [];
  for (let i = 0; i < n; i++) events.push(tool(`c${i}`, 'completed'), chunk(`after c${i}`));
  return applyEvents(createThread(), events);
}

describe('the tool-call index of a growing thread', () => {
  it('a fold that adds a tool call extends the index it has, not a copy of every id', () => {
    let s = long(1000);
    const index = s.toolIndex;
    for (let i = 0; i < 5; i++) {
      s = applyEvents(s, [tool(`n${i}`), chunk('more')]);
      s = applyEvents(s, [chunk('text only')]);
    }
    // Linear folds share one index object: a new tool call costs one key, not a copy of the thread's 1,000.
    expect(s.toolIndex).toBe(index);
    expect(Object.keys(s.toolIndex)).toHaveLength(1005);
    expect(s.entries[s.toolIndex.n4!]).toMatchObject({ kind: 'tool_call', toolCallId: 'n4' });
  });

  it('an earlier state does not see tool calls folded after it, though it shares their index', () => {
    const before = long(3);
    const after = applyEvents(before, [tool('later')]);
    expect(after.toolIndex).toBe(before.toolIndex);
    // The earlier state (a view may keep it) gets an update for `later` as a call it has never seen: a new entry
    // at its own end, not a write past it.
    const fromBefore = applyEvents(before, [toolUpdate('later', 'completed')]);
    expect(fromBefore.entries).toHaveLength(before.entries.length + 1);
    expect(tools(fromBefore, 'later')).toEqual([expect.objectContaining({ status: 'completed', title: 'Tool call' })]);
    expect(tools(after, 'later')).toEqual([expect.objectContaining({ status: 'pending', title: 'call later' })]);
    // Neither branch changed the other's entries.
    expect(before.entries).toHaveLength(6);
    expect(tools(applyEvents(after, [toolUpdate('later', 'failed')]), 'later')).toEqual([expect.objectContaining({ status: 'failed' })]);
  });

  it('a batch tried and dropped without a tool call does not cost the next one a copy of the index', () => {
    let s = applyEvents(long(1000), [tool('owned')]);
    const index = s.toolIndex;
    for (let i = 0; i < 3; i++) {
      applyEvents(s, [chunk(`tried ${i}`)]); // the history fold tries a run of chunks as one batch, and may drop it
      s = applyEvents(s, [tool(`after-try-${i}`)]);
    }
    expect(s.toolIndex).toBe(index);
    // A branch that wrote to the index makes the other one copy it: each keeps its own tool calls.
    const base = s;
    const a = applyEvents(base, [tool('only-a')]);
    const b = applyEvents(base, [tool('only-b')]);
    expect(b.toolIndex).not.toBe(a.toolIndex);
    expect(tools(applyEvents(b, [toolUpdate('only-b', 'completed')]), 'only-b')).toEqual([expect.objectContaining({ status: 'completed', title: 'call only-b' })]);
    expect(tools(applyEvents(a, [toolUpdate('only-a', 'completed')]), 'only-a')).toEqual([expect.objectContaining({ status: 'completed', title: 'call only-a' })]);
  });

  it('a batch folded and dropped (the history fold tries batches) leaves no tool call behind', () => {
    const base = long(2);
    applyEvents(base, [tool('dropped')]); // its result is never used
    // Another batch from the same base puts another tool call where `dropped` would have been, then updates `dropped`.
    const kept = applyEvents(base, [tool('instead'), toolUpdate('dropped', 'completed')]);
    const at = base.entries.length;
    expect(kept.entries[at]).toMatchObject({ kind: 'tool_call', toolCallId: 'instead', status: 'pending' });
    expect(tools(kept, 'dropped')).toEqual([expect.objectContaining({ status: 'completed', title: 'Tool call' })]);
    expect(kept.entries).toHaveLength(at + 2);
    expect(kept.entries[kept.toolIndex.dropped!]).toMatchObject({ kind: 'tool_call', toolCallId: 'dropped' });
  });

  it('tool call ids that name Object properties are ids like any other', () => {
    let s = createThread();
    for (const id of ['__proto__', 'constructor', 'hasOwnProperty', 'toString']) {
      s = applyEvents(s, [tool(id), chunk(`after ${id}`)]);
      s = applyEvents(s, [toolUpdate(id, 'completed')]);
      expect(tools(s, id), id).toEqual([expect.objectContaining({ status: 'completed', title: `call ${id}` })]);
    }
    expect(Object.keys(s.toolIndex).sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
    // Over the wire (JSON), in a view's tail and in an index as of a length, the ids stay own keys.
    const wire = JSON.parse(JSON.stringify(s)) as ThreadState;
    expect(tools(applyEvents(wire, [toolUpdate('__proto__', 'failed')]), '__proto__')).toEqual([expect.objectContaining({ status: 'failed' })]);
    expect(Object.keys(threadTail(s, 4).toolIndex).sort()).toEqual(['hasOwnProperty', 'toString']);
    expect(Object.keys(toolIndexUpTo(s.toolIndex, 2))).toEqual(['__proto__']);
  });

  it('a batch reports the entries it added or replaced, in order (the history fold reads them instead of comparing every entry)', () => {
    const base = long(3); // t, m, t, m, t, m
    const changed: number[] = [];
    const next = applyEvents(base, [toolUpdate('c0', 'failed'), chunk(' and more'), tool('c9'), toolUpdate('c1', 'failed')], undefined, changed);
    expect(changed).toEqual([0, 2, 5, 6]);
    for (let i = 0; i < next.entries.length; i++) expect(next.entries[i] !== base.entries[i], `entry ${i}`).toBe(changed.includes(i));
  });

  it('a batch of 300,000 new entries reports every one (an agent dumping a long turn at once)', () => {
    const events: ThreadEvent[] = [];
    for (let i = 0; i < 150_000; i++) events.push(tool(`b${i}`, 'completed'), chunk(`after b${i}`));
    const changed: number[] = [];
    const next = applyEvents(createThread(), events, undefined, changed);
    expect(next.entries).toHaveLength(300_000);
    expect(changed).toHaveLength(300_000);
    expect(changed[299_999]).toBe(299_999);
  });
});
