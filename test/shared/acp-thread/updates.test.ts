import acpSchema from '@agentclientprotocol/sdk/schema/v1/schema.json';
import { describe, expect, it } from 'vitest';
import { applyEvents, createThread, entryKindOf, KNOWN_UPDATE_KINDS, UPDATE_KINDS, type ThreadEvent } from '../../../src/shared/acp-thread';

const schemaKinds = (acpSchema as unknown as { $defs: { SessionUpdate: { oneOf: Array<{ properties: { sessionUpdate: { const: string } } }> } } }).$defs.SessionUpdate.oneOf.map(
  (b) => b.properties.sessionUpdate.const,
);

describe('the update-kind table', () => {
  it('has a row for every session/update kind of the ACP schema (a new kind fails here until it is given one)', () => {
    expect(schemaKinds.length).toBeGreaterThan(5);
    for (const kind of schemaKinds) expect(KNOWN_UPDATE_KINDS, kind).toContain(kind);
  });

  it('says truly what each kind shows as: folding one update of a kind makes an entry of that kind, or none', () => {
    const samples: Record<string, Record<string, unknown>> = {
      user_message_chunk: { content: { type: 'text', text: 'u' } },
      agent_message_chunk: { content: { type: 'text', text: 'a' } },
      agent_thought_chunk: { content: { type: 'text', text: 't' } },
      tool_call: { toolCallId: 't1', title: 'Read' },
      tool_call_update: { toolCallId: 't2', status: 'completed' },
      plan: { entries: [{ content: 'step', status: 'pending', priority: 'high' }] },
      notice: { title: 'Heads up' },
      available_commands_update: { availableCommands: [{ name: 'x', description: 'y' }] },
      current_mode_update: { currentModeId: 'ask' },
      config_option_update: { configOptions: [] },
      session_info_update: { title: 'T' },
      usage_update: { used: 1, size: 2 },
      compaction_update: { compactionId: 'c1', status: 'in_progress' },
      compaction_summary_chunk: { compactionId: 'c2', content: { type: 'text', text: 's' } },
      subagent_update: { sessionId: 'child-1', title: 'Child' },
      session_message: { messageId: 'm-1', content: [{ type: 'text', text: 'task' }] },
      session_message_chunk: { messageId: 'm-2', content: { type: 'text', text: 'more' } },
      plan_update: { plan: { type: 'items', planId: 'p1', entries: [{ content: 'step', status: 'pending', priority: 'high' }] } },
      plan_removed: { planId: 'p1' },
    };
    // Kinds that change an entry an earlier update made: that update first.
    const before: Record<string, ThreadEvent[]> = {
      plan_removed: [{ type: 'update', update: { sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'p1', content: 'x' } } } as unknown as ThreadEvent],
    };
    expect(Object.keys(samples).sort()).toEqual(Object.keys(UPDATE_KINDS).sort());
    for (const [kind, fields] of Object.entries(samples)) {
      const event = { type: 'update', update: { sessionUpdate: kind, ...fields } } as unknown as ThreadEvent;
      const entries = applyEvents(createThread(), [...(before[kind] ?? []), event]).entries;
      expect(entries.map((e) => e.kind), kind).toEqual(entryKindOf(kind) === null ? [] : [entryKindOf(kind)]);
    }
  });

  it('knows nothing of kinds outside the table, including inherited names', () => {
    for (const kind of ['bogus', 'toString', '__proto__', 'constructor', 42, null]) expect(entryKindOf(kind)).toBeNull();
    const s = applyEvents(createThread(), [{ type: 'update', update: { sessionUpdate: 'toString' } } as unknown as ThreadEvent]);
    expect(s.entries).toEqual([]);
  });

  it('keeps one compaction entry per id where it first came, patched by later updates', () => {
    const u = (update: Record<string, unknown>): ThreadEvent => ({ type: 'update', update } as unknown as ThreadEvent);
    let s = applyEvents(createThread(), [
      u({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: 'Kept: ' } }),
      u({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'between' } }),
      u({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: { type: 'text', text: 'the plan.' } }),
      u({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' }),
    ]);
    expect(s.entries.map((e) => e.kind)).toEqual(['compaction', 'agent_message']);
    expect(s.entries[0]).toMatchObject({ compactionId: 'c1', status: 'completed', summary: [{ type: 'text', text: 'Kept: the plan.' }], error: null });
    // summary and error: absent keeps, a value replaces, null clears.
    s = applyEvents(s, [u({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'failed', error: 'out of tokens', summary: [{ type: 'text', text: 'New' }] })]);
    expect(s.entries[0]).toMatchObject({ status: 'failed', summary: [{ type: 'text', text: 'New' }], error: 'out of tokens' });
    s = applyEvents(s, [u({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'failed', summary: null })]);
    expect(s.entries[0]).toMatchObject({ summary: [], error: 'out of tokens' });
    // Malformed updates change nothing.
    const before = s.entries;
    s = applyEvents(s, [u({ sessionUpdate: 'compaction_update', status: 'completed' }), u({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: 'x' })]);
    expect(s.entries).toEqual(before);
  });
});
