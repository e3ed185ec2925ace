import { describe, expect, it } from 'vitest';
import { applyEvents, createThread, type ThreadEvent, type ThreadState } from '../../../src/shared/acp-thread';
import { Draft } from '../../../src/shared/acp-thread/draft';
import { applyChunkById, applyMessageUpsert, V2_MESSAGE_UPDATES } from '../../../src/shared/acp-thread/message-upsert';
import { V2PromptLifecycle } from '../../../src/shared/acp-thread/v2-prompt-lifecycle';

/** ACP v2 (draft alpha.17) built ahead of a v2 agent: message upserts by id and the prompt lifecycle (docs/acp-v2.md). */

type V2Update = Record<string, unknown> & { sessionUpdate: string };

/** Folds v2 message updates and chunks the way the v2 path will. */
function fold(updates: V2Update[], state: ThreadState = createThread()): ThreadState {
  const d = new Draft(state);
  for (const u of updates) {
    const whole = V2_MESSAGE_UPDATES[u.sessionUpdate];
    if (whole) applyMessageUpsert(d, whole, u);
    else if (u.sessionUpdate === 'agent_message_chunk') applyChunkById(d, 'agent_message', u);
    else if (u.sessionUpdate === 'agent_thought_chunk') applyChunkById(d, 'thought', u);
  }
  return d.finish();
}
const text = (t: string) => ({ type: 'text', text: t });
const chunk = (messageId: string, t: string): V2Update => ({ sessionUpdate: 'agent_message_chunk', messageId, content: text(t) });
const texts = (s: ThreadState) => s.entries.map((e) => ('parts' in e ? e.parts.map((p) => (p.type === 'text' ? p.text : '?')).join('') : e.kind));

describe('v2 message upserts', () => {
  it('a whole-message update replaces what the chunks streamed; chunks after it append (the draft RFD examples)', () => {
    expect(texts(fold([chunk('m1', 'A'), chunk('m1', 'B'), { sessionUpdate: 'agent_message', messageId: 'm1', content: [text('C')] }]))).toEqual(['C']);
    expect(texts(fold([{ sessionUpdate: 'agent_message', messageId: 'm1', content: [text('A')] }, chunk('m1', 'B')]))).toEqual(['AB']);
  });

  it('patch fields: absent content leaves it, null and [] clear it; an update without a messageId is ignored', () => {
    const s = fold([chunk('m1', 'kept'), { sessionUpdate: 'agent_message', messageId: 'm1', _meta: { source: 'replay' } }]);
    expect(texts(s)).toEqual(['kept']);
    expect(texts(fold([chunk('m1', 'gone'), { sessionUpdate: 'agent_message', messageId: 'm1', content: null }]))).toEqual(['']);
    expect(texts(fold([chunk('m1', 'gone'), { sessionUpdate: 'agent_message', messageId: 'm1', content: [] }]))).toEqual(['']);
    expect(fold([{ sessionUpdate: 'agent_message', content: [text('x')] }]).entries).toEqual([]);
  });

  it('finds its message by id wherever it is: a redaction of an earlier message changes that one, not the last', () => {
    const s = fold([chunk('m1', 'secret stuff'), { sessionUpdate: 'agent_thought', messageId: 't1', content: [text('hmm')] }, chunk('m2', 'later'), { sessionUpdate: 'agent_message', messageId: 'm1', content: [text('[redacted]')] }, chunk('m1', '.')]);
    expect(s.entries.map((e) => e.kind)).toEqual(['agent_message', 'thought', 'agent_message']);
    expect(texts(s)).toEqual(['[redacted].', 'hmm', 'later']);
  });

  it('prompt acknowledgement: the agent user_message for our prompt takes its place (with the agent id), not a second copy', () => {
    const sent: ThreadEvent[] = [{ type: 'prompt', promptId: 'p1', content: [{ type: 'text', text: 'What is 2+2?' }] }];
    const s = fold([{ sessionUpdate: 'user_message', messageId: 'u-1', content: [text('What is 2+2?')] }, chunk('a-1', '4')], applyEvents(createThread(), sent));
    expect(s.entries.map((e) => e.kind)).toEqual(['user_message', 'agent_message']);
    expect(s.entries[0]).toMatchObject({ promptId: 'p1', messageId: 'u-1' });
    // A user message of someone else (another client on the session) after that is a message of its own.
    const other = fold([{ sessionUpdate: 'user_message', messageId: 'u-2', content: [text('from elsewhere')] }], s);
    expect(other.entries.map((e) => e.kind)).toEqual(['user_message', 'agent_message', 'user_message']);
    expect(other.entries[2]).toMatchObject({ promptId: null, messageId: 'u-2' });
  });
});

describe('v2 prompt lifecycle', () => {
  it('the prompt answer is only the acknowledgement: the turn ends at state_update idle, with its stop reason', () => {
    const life = new V2PromptLifecycle();
    life.sent('p1');
    expect(life.stateUpdate({ state: 'running' }).events).toEqual([]);
    expect(life.answered('p1').events).toEqual([]);
    expect(life.current).toEqual({ promptId: 'p1', phase: 'accepted' });
    expect(life.stateUpdate({ state: 'requires_action' }).events).toEqual([]);
    expect(life.state).toBe('requires_action');
    expect(life.stateUpdate({ state: 'idle', stopReason: 'end_turn' }).events).toEqual([{ type: 'turn_end', promptId: 'p1', stopReason: 'end_turn', error: null }]);
    expect(life.current).toBeNull();
  });

  it('an idle before the prompt is accepted belongs to earlier work; a refused prompt ends its turn with the error', () => {
    const life = new V2PromptLifecycle();
    life.sent('p1');
    expect(life.stateUpdate({ state: 'idle', stopReason: 'end_turn' }).events).toEqual([]);
    expect(life.failed('p1', { code: -32602, message: 'bad prompt' }).events).toEqual([{ type: 'turn_end', promptId: 'p1', stopReason: null, error: { code: -32602, message: 'bad prompt' } }]);
  });

  it('agent-initiated work (no prompt of ours) ends a turn with no prompt id; an unknown stop reason is none', () => {
    const life = new V2PromptLifecycle();
    life.stateUpdate({ state: 'running' });
    expect(life.stateUpdate({ state: 'idle', stopReason: 'made_up' }).events).toEqual([{ type: 'turn_end', promptId: null, stopReason: null, error: null }]);
    expect(life.stateUpdate({ state: 'idle' }).events).toEqual([]);
  });
});
