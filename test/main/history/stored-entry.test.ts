import { describe, expect, it } from 'vitest';
import { INDEX_CAPS } from '../../../src/main/core/history/entry-drafts';
import { storedEntry } from '../../../src/main/core/history/stored-entry';
import type { ThreadEntry, ToolCallEntry, UserMessageEntry } from '../../../src/shared/acp-thread';

const caps = { ...INDEX_CAPS, text: 10, entry: 25 };

describe('a thread entry as history stores it', () => {
  it('cuts every string the same way for every kind (an output keeps its end), within a budget for the whole entry', () => {
    const entry = {
      kind: 'some_new_kind',
      id: 'e1',
      note: 'abcdefghijklmnop',
      nested: { output: '0123456789TAIL', list: ['xxxxxxxxxxxx', 'more text'] },
    } as unknown as ThreadEntry;
    const stored = storedEntry(entry, [], caps) as unknown as Record<string, unknown>;
    // Its kind and id are kept whole: the entry stays what it is.
    expect(stored).toEqual({ kind: 'some_new_kind', id: 'e1', note: 'abcdefghij', nested: { output: '456789TAIL', list: ['xxxxx', ''] } });
    const roomy = storedEntry(entry, [], { ...caps, entry: 1000 }) as unknown as Record<string, unknown>;
    expect(roomy).toEqual({ kind: 'some_new_kind', id: 'e1', note: 'abcdefghij', nested: { output: '456789TAIL', list: ['xxxxxxxxxx', 'more text'] } });
    // The fold's entry is left as it was.
    expect((entry as unknown as { note: string }).note).toBe('abcdefghijklmnop');
  });

  it('leaves out binary content, keeps an agent\'s __proto__ key as data, and adds the client terminals a tool call shows', () => {
    const prompt: UserMessageEntry = { kind: 'user_message', id: 'e1', promptId: 'p1', messageId: null, parts: [{ type: 'block', block: { type: 'image', mimeType: 'image/png', data: 'AAAA'.repeat(1000) } }] };
    expect(storedEntry(prompt, [], INDEX_CAPS)).toEqual({ ...prompt, parts: [{ type: 'block', block: { type: 'image', mimeType: 'image/png' } }] });

    const tool: ToolCallEntry = {
      kind: 'tool_call',
      id: 'e2',
      toolCallId: 't1',
      title: 'Run',
      name: null,
      toolKind: 'execute',
      status: 'completed',
      content: [{ type: 'terminal', terminalId: 'term-1' }],
      locations: [],
      rawInput: JSON.parse('{"__proto__": {"polluted": true}, "command": "ls"}') as unknown,
      permission: null,
      metaTerminals: null,
    };
    const stored = storedEntry(tool, [{ terminalId: 'term-1', output: 'a.txt\n', truncated: false, exitCode: 0, signal: null }], INDEX_CAPS) as ToolCallEntry;
    const raw = stored.rawInput as Record<string, unknown>;
    expect(Object.keys(raw)).toEqual(['__proto__', 'command']);
    expect(Object.getPrototypeOf(raw)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(stored.storedTerminals).toEqual({ 'term-1': { output: 'a.txt\n', truncated: false, exit: { exitCode: 0, signal: null } } });
  });
});
