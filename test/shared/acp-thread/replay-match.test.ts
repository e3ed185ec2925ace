import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { applyEvents, createThread, ReplayMatcher, type ThreadEvent } from '../../../src/shared/acp-thread';

const text = (t: string) => ({ type: 'text' as const, text: t });
const agent = (t: string, messageId?: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: text(t), ...(messageId ? { messageId } : {}) });
const user = (t: string): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: text(t) });
const thought = (t: string): SessionUpdate => ({ sessionUpdate: 'agent_thought_chunk', content: text(t) });
const tool = (toolCallId: string): SessionUpdate => ({ sessionUpdate: 'tool_call', toolCallId, title: 'Read', status: 'completed' });

function stored(...events: Array<SessionUpdate | { prompt: string }>) {
  const evs: ThreadEvent[] = events.map((e, i) =>
    'prompt' in e ? { type: 'prompt', promptId: `p${i}`, content: [text(e.prompt)] } : { type: 'update', update: e },
  );
  return new ReplayMatcher(applyEvents(createThread(), evs));
}

const verdicts = (m: ReplayMatcher, updates: SessionUpdate[]) => updates.map((u) => m.isReplay(u));

describe('ReplayMatcher', () => {
  it('recognises a replay chunked differently from the live stream, prompts included', () => {
    const m = stored({ prompt: 'fix it' }, agent('Done'), agent(', all'), tool('t1'), agent('Fixed.'));
    expect(verdicts(m, [user('fix it'), agent('Done, a'), agent('ll'), tool('t1'), { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }, agent('Fixed.')])).toEqual([
      true, true, true, true, true, true,
    ]);
    expect(m.isReplay(agent('Fixed.'))).toBe(false);
    expect(m.done).toBe(true);
  });

  it('skips stored pieces the agent does not replay (thoughts), in order', () => {
    const m = stored({ prompt: 'q' }, thought('hmm'), agent('a'));
    expect(verdicts(m, [user('q'), agent('a')])).toEqual([true, true]);
  });

  it('ends at the first new conversation update: everything after it is kept', () => {
    const m = stored({ prompt: 'q' }, agent('a'));
    expect(verdicts(m, [user('q'), agent('something else'), agent('a')])).toEqual([true, false, false]);
  });

  it('keeps state updates and unknown tool calls', () => {
    const m = stored({ prompt: 'q' }, tool('t1'));
    expect(m.isReplay({ sessionUpdate: 'current_mode_update', currentModeId: 'code' })).toBe(false);
    expect(m.done).toBe(false);
    expect(m.isReplay(tool('t2'))).toBe(false);
    expect(m.done).toBe(true);
  });

  it('knows messages by their messageId when the text differs', () => {
    const m = stored({ prompt: 'q' }, agent('Answer **bold**', 'm1'));
    expect(verdicts(m, [agent('Answer bold', 'm1'), agent('New', 'm2')])).toEqual([true, false]);
  });
});
