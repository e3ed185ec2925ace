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
    m.promptSent();
    expect(m.isReplay(agent('Fixed.'))).toBe(false);
    expect(m.done).toBe(true);
  });

  it('until a prompt is sent, takes every conversation update for replay, whatever the agent wraps around the stored messages', () => {
    const m = stored({ prompt: 'q' }, agent('a'), tool('t1'));
    const wrapped = [
      user('<session_context>\nThis is the Gemini CLI.\n</session_context>'),
      user('<session_context>…</session_context>\nq'),
      agent('a'),
      user('[Function Response: run_shell_command]'),
      thought('**Planning**\nre-rendered'),
      tool('t-never-seen'),
      { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'low', status: 'pending' }] } as SessionUpdate,
      agent('something the store does not have'),
    ];
    expect(verdicts(m, wrapped)).toEqual(wrapped.map(() => true));
    expect(m.done).toBe(false);
    // State updates are never replay.
    expect(m.isReplay({ sessionUpdate: 'current_mode_update', currentModeId: 'code' })).toBe(false);
    expect(m.isReplay({ sessionUpdate: 'available_commands_update', availableCommands: [] })).toBe(false);
  });

  it('after a prompt, still drops the rest of the replay (user messages, re-rendered thoughts, stored tool calls), then keeps the new turn', () => {
    const m = stored({ prompt: 'q' }, thought('Planning: the steps'), agent('Hello there, friend.'), tool('t1'), { prompt: 'r' }, agent('Second answer'));
    expect(verdicts(m, [user('<session_context>x</session_context>'), user('q')])).toEqual([true, true]);
    m.promptSent();
    expect(
      verdicts(m, [
        thought('**Planning**\nthe steps'),
        agent('Hello there, friend.'),
        tool('t1'),
        user('[Function Response: run_shell_command]'),
        user('r'),
        agent('Second answer'),
        agent('Hello'),
        agent(' there'),
      ]),
    ).toEqual([true, true, true, true, true, true, false, false]);
    expect(m.done).toBe(true);
  });

  it('after a prompt, skips stored pieces the agent does not replay (thoughts), in order', () => {
    const m = stored({ prompt: 'q' }, thought('hmm'), agent('a'));
    m.promptSent();
    expect(verdicts(m, [user('q'), agent('a')])).toEqual([true, true]);
  });

  it('after a prompt, ends at the first new conversation update: everything after it is kept', () => {
    const m = stored({ prompt: 'q' }, agent('a'));
    m.promptSent();
    expect(verdicts(m, [user('q'), agent('something else'), agent('a')])).toEqual([true, false, false]);
  });

  it('keeps state updates; after a prompt, an unknown tool call is new', () => {
    const m = stored({ prompt: 'q' }, tool('t1'));
    expect(m.isReplay({ sessionUpdate: 'current_mode_update', currentModeId: 'code' })).toBe(false);
    expect(m.done).toBe(false);
    m.promptSent();
    expect(m.isReplay(tool('t2'))).toBe(false);
    expect(m.done).toBe(true);
  });

  it('knows messages by their messageId when the text differs', () => {
    const m = stored({ prompt: 'q' }, agent('Answer **bold**', 'm1'));
    m.promptSent();
    expect(verdicts(m, [agent('Answer bold', 'm1'), agent('New', 'm2')])).toEqual([true, false]);
  });
});
