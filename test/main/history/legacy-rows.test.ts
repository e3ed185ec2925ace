import { afterEach, describe, expect, it } from 'vitest';
import { storedText } from '../../../src/main/core/store/compression';
import type { ToolCallEntry } from '../../../src/shared/acp-thread';
import { Acp, createStore, type TestStore } from './acp';

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** Details as Switchboard stored them before history kept thread entries (its own prompt, tool, plan and stop shapes). */
const OLD = {
  prompt: { kind: 'prompt', blocks: [{ type: 'text', text: 'Tidy the ledger' }, { type: 'resource_link', uri: 'file:///p/src/ledger.ts', name: 'ledger.ts' }] },
  tool: {
    kind: 'tool',
    tool: {
      toolCallId: 'c1',
      title: 'Run the ledger tests',
      kind: 'execute',
      status: 'in_progress',
      paths: ['/p/src/ledger.ts'],
      text: 'running',
      diffs: [{ path: '/p/src/ledger.ts', oldText: 'a', newText: 'export const balance = 0;', truncated: false }],
      terminals: [{ terminalId: 'term-9', output: 'PASS ledger', exitCode: 0, signal: null, truncated: false }],
      rawInput: '{"command":"npm test"}',
      rawOutput: null,
    },
  },
  plan: { kind: 'plan', entries: [{ content: 'Balance the books', status: 'completed', priority: 'high' }] },
  stop: { kind: 'stop', stopReason: null, error: { code: -32603, message: 'the agent fell over' } },
};

describe('rows stored before history kept thread entries', () => {
  it('are read as the thread entries they were made from: returned and searched, and rewritten when the entry changes (exports read the log)', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('Tidy the ledger');
    t.append('s1', [p, acp.plan([{ content: 'Balance the books', status: 'completed' }]), acp.tool({ toolCallId: 'c1', title: 'Run the ledger tests', kind: 'execute', status: 'in_progress' }), acp.error(p.id, 'the agent fell over')]);
    const rows = t.db.prepare("SELECT id, kind FROM history_entries WHERE session_id = 's1' AND kind IN ('prompt', 'tool', 'plan', 'stop')").all() as Array<{ id: number; kind: keyof typeof OLD }>;
    expect(rows.map((r) => r.kind).sort()).toEqual(['plan', 'prompt', 'stop', 'tool']);
    for (const r of rows) t.db.prepare('UPDATE history_entries SET detail = ? WHERE id = ?').run(JSON.stringify(OLD[r.kind]), r.id);

    const entries = t.history.entries({ sessionId: 's1', offset: 0, limit: 50 }).entries;
    const byKind = new Map(entries.map((e) => [e.kind, e]));
    expect(byKind.get('prompt')!.entry).toMatchObject({ kind: 'user_message', parts: [{ type: 'text', text: 'Tidy the ledger' }, { type: 'block', block: { type: 'resource_link', name: 'ledger.ts' } }] });
    expect(byKind.get('prompt')!.text).toBe('Tidy the ledger');
    expect(byKind.get('plan')!.entry).toMatchObject({ kind: 'plan', entries: [{ content: 'Balance the books', status: 'completed', priority: 'high' }] });
    expect(byKind.get('stop')!.entry).toMatchObject({ kind: 'turn_error', code: -32603, message: 'the agent fell over' });
    const tool = byKind.get('tool')!.entry as ToolCallEntry;
    // It never finished: it rests as cancelled.
    expect(tool).toMatchObject({ kind: 'tool_call', toolCallId: 'c1', toolKind: 'execute', status: 'cancelled', rawInput: { command: 'npm test' }, locations: [{ path: '/p/src/ledger.ts' }] });
    expect(tool.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'running' } },
      { type: 'diff', path: '/p/src/ledger.ts', oldText: 'a', newText: 'export const balance = 0;' },
    ]);
    expect(tool.metaTerminals).toEqual({ 'term-9': { output: 'PASS ledger', exit: { exitCode: 0, signal: null } } });

    const hit = t.history.search({ query: 'ledger tests', limit: 5, perSession: 5 }).hits[0]!;
    expect(hit).toMatchObject({ kind: 'tool', toolTitle: 'Run the ledger tests' });

    // A later update reads the old row and stores the entry as the thread model folds it.
    const p2 = acp.prompt('again');
    t.append('s1', [p2, acp.toolUpdate({ toolCallId: 'c1', status: 'completed' }), acp.stop(p2.id)]);
    const after = t.history.entries({ sessionId: 's1', offset: 0, limit: 50 }).entries.find((e) => e.kind === 'tool')!;
    expect(after.entry).toMatchObject({ kind: 'tool_call', toolCallId: 'c1', status: 'completed', title: 'Run the ledger tests' });
    const stored = t.db.prepare("SELECT detail FROM history_entries WHERE kind = 'tool'").get() as { detail: string | Uint8Array };
    expect(JSON.parse(storedText(stored.detail, 'the tool row')!)).toMatchObject({ kind: 'entry', entry: { kind: 'tool_call', status: 'completed' } });
  });
});
