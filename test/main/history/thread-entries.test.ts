import { storedText } from '../../../src/main/core/store/compression';
import { afterEach, describe, expect, it } from 'vitest';
import { messageText, threadFromWire } from '../../../src/shared/acp-thread';
import { buildTranscript } from '../../../src/main/core/history/transcript';
import { INDEX_CAPS } from '../../../src/main/core/history/entry-drafts';
import { iterateMessages } from '../../../src/main/core/store/message-log';
import type { HistoryEntry } from '../../../src/shared/contract/history';
import { Acp, createStore, type TestStore } from './acp';

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const notice = (acp: Acp, title: string, description?: string) => ({
  direction: 'a2c' as const,
  method: 'session/update',
  body: JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: acp.acpSessionId, update: { sessionUpdate: 'notice', severity: 'warning', title, ...(description ? { description } : {}) } },
  }),
});

describe('history keeps entry kinds it has no columns for as the thread model folds them', () => {
  it('a notice shows in the stored transcript as the live thread shows it, is searchable and exported', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('Deploy it');
    const wire = [p, notice(acp, 'Rate limited', 'Retrying in 30 seconds'), acp.agent('Deployed.'), acp.stop(p.id)];
    t.append('s1', wire);

    const live = threadFromWire(wire);
    const stored = t.history.entries({ sessionId: 's1', offset: 0, limit: 100 }).entries;
    expect(stored.map((e) => e.kind)).toEqual(['prompt', 'entry', 'agent']);
    const { id: _liveId, ...liveNotice } = live.entries.find((e) => e.kind === 'notice')!;
    expect(stored[1]!.entry).toMatchObject(liveNotice);

    const hits = t.history.search({ query: 'retrying seconds', limit: 10, perSession: 10 }).hits;
    expect(hits.map((h) => h.kind)).toEqual(['entry']);

    const md = t.history.export('s1', 'markdown').text;
    expect(md).toContain('> Rate limited\n> Retrying in 30 seconds');
    expect(t.history.transcript('s1').entries.map((e) => e.kind)).toEqual(['prompt', 'entry', 'agent']);
  });
});

describe("history's transcript is the shared thread model replayed from the log", () => {
  it('a long session: its rows are the thread entries, also after the index forgot the session mid-message', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const wire: Parameters<TestStore['append']>[1] = [];
    const add = (msgs: typeof wire) => {
      wire.push(...msgs);
      t.append('s1', msgs);
    };
    for (let i = 1; i <= 12; i++) {
      const p = acp.prompt(`step ${i}: migrate table ${i}`);
      add([p, acp.tool({ toolCallId: `t${i}`, title: `Edit migration ${i}`, kind: 'edit', status: 'pending' })]);
      const answer = acp.agent(`Migrated table ${i} `);
      add([answer, acp.agent('and checked ')]);
      // The index loses what it keeps in memory (a restart) while the message streams: it folds the log again.
      if (i === 7) (t.history.index() as unknown as { folds: Map<string, unknown> }).folds.clear();
      add([acp.agent(`its rows (${i}).`), acp.toolUpdate({ toolCallId: `t${i}`, status: 'completed' }), acp.plan([{ content: `verify table ${i}`, status: 'pending' }]), acp.stop(p.id)]);
    }
    // A late update of a tool call of the first turn changes its row, not a new one.
    add([acp.toolUpdate({ toolCallId: 't1', title: 'Edit migration 1 (amended)' })]);

    const thread = threadFromWire(wire.map((m) => ({ direction: m.direction, body: m.body })));
    const expected = thread.entries.map((e) =>
      e.kind === 'tool_call' ? ['tool', e.title] : e.kind === 'plan' ? ['plan', e.entries[0]!.content] : e.kind === 'user_message' || e.kind === 'agent_message' ? [e.kind === 'user_message' ? 'prompt' : 'agent', messageText(e.parts)] : [e.kind, ''],
    );
    const rows = t.history.entries({ sessionId: 's1', offset: 0, limit: 500 }).entries;
    const shown = (r: HistoryEntry) => [r.kind, r.entry?.kind === 'tool_call' ? r.entry.title : r.entry?.kind === 'plan' ? r.entry.entries[0]!.content : r.text];
    expect(rows.map(shown)).toEqual(expected);
    expect(t.history.transcript('s1').entries.map(shown)).toEqual(expected);
    expect(t.history.list({ limit: 1, offset: 0 }).sessions[0]).toMatchObject({ turnCount: 12, toolCallCount: 12 });
    expect(t.history.search({ query: '"checked its rows (7)"', limit: 5, perSession: 5 }).hits).toHaveLength(1);
    t.db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
  });
});

describe('a flood of chunks written in one batch', () => {
  it('gives the rows folding one message at a time gives: each row starts at its own message, 16 KB segments', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('stream a lot');
    const wire = [p, acp.thought('thinking '), acp.thought('harder'), acp.agent('start ')];
    for (let i = 0; i < 400; i++) wire.push(acp.agent(`${'x'.repeat(90)} chunk ${i} `));
    wire.push(acp.tool({ toolCallId: 't1', title: 'Read file', kind: 'read', status: 'completed' }), acp.user('(an interjection)'));
    for (let i = 0; i < 5; i++) wire.push(acp.agent(`tail ${i} `, 'm2'));
    wire.push(acp.agent('other message', 'm3'), acp.stop(p.id));
    t.append('s1', wire);

    const rows = t.db
      .prepare("SELECT kind, seq, last_seq AS lastSeq, text FROM history_entries WHERE session_id = ? AND kind <> 'title' ORDER BY id")
      .all('s1')
      .map((r) => ({ ...(r as { kind: string; seq: number; lastSeq: number }), text: storedText((r as { text: string | Uint8Array | null }).text, 'entry') }));
    const oneByOne = buildTranscript('s1', iterateMessages(t.db, 's1'), INDEX_CAPS).entries.map((e) => ({ kind: e.kind, seq: e.seq, lastSeq: e.lastSeq, text: e.text }));
    const plain = (kind: string) => kind === 'agent' || kind === 'thought' || kind === 'user';
    expect(rows.map((r) => ({ ...r, text: plain(r.kind) ? r.text : null }))).toEqual(oneByOne.map((r) => ({ ...r, text: plain(r.kind) ? r.text : null })));
    const agent = rows.filter((r) => r.kind === 'agent');
    expect(agent.length).toBeGreaterThanOrEqual(4); // 36 KB split in 16 KB segments, then two more messages
    expect(agent[0]).toMatchObject({ seq: 4 }); // 'start ' is the 4th message of the session
    expect(rows.find((r) => r.kind === 'thought')).toMatchObject({ seq: 2, lastSeq: 3, text: 'thinking harder' });
    expect(agent.at(-1)).toMatchObject({ seq: wire.length - 1, lastSeq: wire.length - 1, text: 'other message' });
    for (const r of agent) expect(r.text!.length).toBeLessThan(INDEX_CAPS.segment + 200);
  });
});
