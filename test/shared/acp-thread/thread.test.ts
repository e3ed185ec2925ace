import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { applyEvent, applyEvents, createThread, threadFromWire, type ThreadEvent, type ThreadState } from '../../../src/shared/acp-thread';

const up = (update: unknown): ThreadEvent => ({ type: 'update', update: update as SessionUpdate });
const chunk = (text: string, messageId?: string): ThreadEvent =>
  up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, ...(messageId ? { messageId } : {}) });
const fold = (events: ThreadEvent[], state: ThreadState = createThread()) => applyEvents(state, events);

describe('acp-thread', () => {
  it('concatenates chunks of one message; a new messageId or another entry starts a new one', () => {
    const s = fold([
      { type: 'prompt', promptId: 'p1', content: [{ type: 'text', text: 'hi' }] },
      chunk('Hel', 'a'),
      chunk('lo'),
      chunk(' there', 'a'),
      chunk('Second', 'b'),
      up({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } }),
      chunk('Third', 'b'),
      up({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', mimeType: 'image/png', data: 'AA' } }),
    ]);
    expect(s.entries.map((e) => e.kind)).toEqual(['user_message', 'agent_message', 'agent_message', 'thought', 'agent_message']);
    expect(s.entries[1]).toMatchObject({ messageId: 'a', parts: [{ type: 'text', text: 'Hello there' }] });
    expect(s.entries[2]).toMatchObject({ messageId: 'b', parts: [{ type: 'text', text: 'Second' }] });
    expect(s.entries[4]).toMatchObject({ parts: [{ type: 'text', text: 'Third' }, { type: 'block', block: { type: 'image' } }] });
    expect(s.turn).toMatchObject({ running: true, promptId: 'p1', startIndex: 0 });
  });

  it('upserts tool calls by id: unannounced updates create, duplicates merge, only present fields change', () => {
    const s = fold([
      up({ sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'in_progress' }),
      up({ sessionUpdate: 'tool_call', toolCallId: 'y', title: 'Read', kind: 'read', status: 'pending', content: [{ type: 'content', content: { type: 'text', text: 'a' } }] }),
      up({ sessionUpdate: 'tool_call', toolCallId: 'y', title: 'Read again', kind: 'read' }),
      up({ sessionUpdate: 'tool_call_update', toolCallId: 'y', status: 'completed', rawOutput: { ok: 1 } }),
      up({ sessionUpdate: 'tool_call_update', toolCallId: 'x', title: 'Late title', kind: 'not-a-kind', status: 'bogus' }),
    ]);
    expect(s.entries).toHaveLength(2);
    expect(s.entries[0]).toMatchObject({ kind: 'tool_call', toolCallId: 'x', title: 'Late title', toolKind: 'other', status: 'in_progress' });
    expect(s.entries[1]).toMatchObject({ toolCallId: 'y', title: 'Read again', status: 'completed', rawOutput: { ok: 1 }, content: [{ type: 'content' }] });
    expect(s.toolIndex).toEqual({ x: 0, y: 1 });
  });

  it('cancel marks unfinished tool calls cancelled; a failed turn marks them failed and records the error', () => {
    let s = fold([
      { type: 'prompt', promptId: 'p1', content: [] },
      up({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'A', status: 'completed' }),
      up({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'B', status: 'in_progress' }),
      { type: 'permission', requestId: 'r1', toolCall: { toolCallId: 'c', title: 'C', kind: 'edit' }, options: [] },
      { type: 'cancel' },
    ]);
    expect(s.entries.filter((e) => e.kind === 'tool_call').map((e) => e.kind === 'tool_call' && [e.toolCallId, e.status, e.permission])).toEqual([
      ['a', 'completed', null],
      ['b', 'cancelled', null],
      ['c', 'cancelled', null],
    ]);
    s = fold(
      [
        { type: 'turn_end', promptId: 'p1', stopReason: 'cancelled', error: null },
        { type: 'prompt', promptId: 'p2', content: [] },
        up({ sessionUpdate: 'tool_call', toolCallId: 'd', title: 'D', status: 'pending' }),
        { type: 'turn_end', promptId: 'p2', stopReason: null, error: { code: 'agent_exited', message: 'gone' } },
      ],
      s,
    );
    expect(s.entries.at(-2)).toMatchObject({ toolCallId: 'd', status: 'failed' });
    expect(s.entries.at(-1)).toMatchObject({ kind: 'turn_error', code: 'agent_exited', message: 'gone' });
    // An earlier turn's entries are not touched by a later failure.
    expect(s.entries.find((e) => e.kind === 'tool_call' && e.toolCallId === 'b')).toMatchObject({ status: 'cancelled' });
    expect(s.turn).toMatchObject({ running: false, lastError: { code: 'agent_exited' } });
  });

  it('keeps one plan entry per turn, replaced by each update', () => {
    const plan = (n: number) => up({ sessionUpdate: 'plan', entries: Array.from({ length: n }, (_, i) => ({ content: `s${i}`, priority: 'low', status: 'pending' })) });
    const s = fold([{ type: 'prompt', promptId: 'p1', content: [] }, plan(1), chunk('x'), plan(2), { type: 'prompt', promptId: 'p2', content: [] }, plan(3)]);
    const plans = s.entries.filter((e) => e.kind === 'plan');
    expect(plans.map((p) => p.kind === 'plan' && p.entries.length)).toEqual([2, 3]);
    expect(s.plan?.length).toBe(3);
  });

  it('tracks session-level state: modes, config options in order, commands, usage, title', () => {
    const s = fold([
      {
        type: 'setup',
        modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] },
        configOptions: [
          { id: 'z', name: 'Z', type: 'select', currentValue: 'a', options: [] },
          { id: 'mode', name: 'Mode', category: 'mode', type: 'select', currentValue: 'ask', options: [] },
        ],
      },
      up({ sessionUpdate: 'current_mode_update', currentModeId: 'code' }),
      up({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'a', description: 'A' }, { bad: 1 }] }),
      up({ sessionUpdate: 'usage_update', used: 5, size: 10 }),
      up({ sessionUpdate: 'session_info_update', title: 'T' }),
      up({ sessionUpdate: 'session_info_update', updatedAt: '2025-01-01T00:00:00Z' }),
    ]);
    expect(s.modes?.currentModeId).toBe('code');
    expect(s.configOptions.map((o) => [o.id, o.currentValue])).toEqual([
      ['z', 'a'],
      ['mode', 'code'],
    ]);
    expect(s.commands.map((c) => c.name)).toEqual(['a']);
    expect(s.usage).toEqual({ used: 5, size: 10, cost: null });
    expect(s.title).toBe('T');
    expect(fold([up({ sessionUpdate: 'session_info_update', title: null })], s).title).toBeNull();
  });

  it('never changes a state it was given, and shares untouched entries', () => {
    const a = fold([chunk('one'), up({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'T' })]);
    const frozen = JSON.stringify(a);
    const b = applyEvents(a, [up({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'completed' }), chunk('two')]);
    expect(JSON.stringify(a)).toBe(frozen);
    expect(b.entries[0]).toBe(a.entries[0]);
    expect(b.entries[1]).not.toBe(a.entries[1]);
    expect(b.version).toBe(a.version + 1);
    expect(applyEvents(b, [])).toBe(b);
  });

  it('ignores unknown kinds and survives garbage', () => {
    let s = createThread();
    const junk: unknown[] = [null, 1, 'x', [], {}, { sessionUpdate: 'mystery' }, { sessionUpdate: 'agent_message_chunk' }, { sessionUpdate: 'agent_message_chunk', content: 'str' }, { sessionUpdate: 'tool_call' }, { sessionUpdate: 'tool_call_update', toolCallId: 5 }, { sessionUpdate: 'plan', entries: 'no' }, { sessionUpdate: 'plan', entries: [null, { content: 'ok' }] }, { sessionUpdate: 'usage_update', used: 'a' }, { sessionUpdate: 'tool_call_update', toolCallId: 'q', content: [null, 1, { type: 'diff', path: '/a', newText: 'b' }], locations: 'x', _meta: { terminal_output: { terminal_id: 't', data: 5 } } }];
    for (const j of junk) s = applyEvent(s, up(j));
    expect(s.entries.map((e) => e.kind)).toEqual(['plan', 'tool_call']);
    expect(s.entries[1]).toMatchObject({ toolCallId: 'q', content: [{ type: 'diff' }], locations: [], metaTerminals: null });
  });

  it('rebuilds the same thread from the stored wire messages', () => {
    const sid = 'acp-1';
    const wire = [
      { direction: 'c2a' as const, body: { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/p', mcpServers: [] } } },
      { direction: 'a2c' as const, body: { jsonrpc: '2.0', id: 1, result: { sessionId: sid, modes: { currentModeId: 'ask', availableModes: [] } } } },
      { direction: 'c2a' as const, body: { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: sid, prompt: [{ type: 'text', text: 'go' }] } } },
      { direction: 'a2c' as const, body: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } } } }) },
      { direction: 'a2c' as const, body: { jsonrpc: '2.0', id: 'r1', method: 'session/request_permission', params: { sessionId: sid, toolCall: { toolCallId: 't1', title: 'W' }, options: [{ optionId: 'y', name: 'Y', kind: 'allow_once' }] } } },
      { direction: 'c2a' as const, body: { jsonrpc: '2.0', id: 'r1', result: { outcome: { outcome: 'selected', optionId: 'y' } } } },
      { direction: 'a2c' as const, body: { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } } },
      { direction: 'c2a' as const, body: { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: sid, prompt: [] } } },
      { direction: 'a2c' as const, body: { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'Authentication required' } } },
      { direction: 'a2c' as const, body: 'not json' },
    ];
    const s = threadFromWire(wire);
    expect(s.modes?.currentModeId).toBe('ask');
    expect(s.entries.map((e) => e.kind)).toEqual(['user_message', 'agent_message', 'tool_call', 'user_message', 'turn_error']);
    expect(s.entries[2]).toMatchObject({ toolCallId: 't1', permission: null });
    expect(s.entries[4]).toMatchObject({ code: -32000 });
    expect(s.turn).toMatchObject({ running: false, lastError: { code: -32000 } });
  });
});
