import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTranscript, exportFileName, unifiedDiff } from '../../../src/main/core/history/transcript';
import type { ToolCallEntry } from '../../../src/shared/acp-thread';
import type { HistorySession } from '../../../src/shared/contract/history';
import { createStore, type TestStore } from './acp';

// Wire traffic recorded from real agents against the fake LLM, kept with the tests (gzipped JSONL).
const TRANSCRIPTS = new URL('../../fixtures/transcripts/', import.meta.url);
type Rec = { t: number; dir: string; msg: unknown };
function recorded(name: string): Array<{ direction: 'c2a' | 'a2c'; method: string | null; body: string; ts: number }> {
  return gunzipSync(readFileSync(new URL(`${name}.jsonl.gz`, TRANSCRIPTS)))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec)
    .filter((r) => r.dir === 'c2a' || r.dir === 'a2c')
    .map((r) => {
      const msg = r.msg as { method?: string };
      return { direction: r.dir as 'c2a' | 'a2c', method: msg.method ?? null, body: JSON.stringify(r.msg), ts: 1_735_000_000_000 + r.t };
    });
}

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
async function withRecorded(name: string): Promise<TestStore> {
  const t = await createStore();
  stores.push(t);
  t.addSession('s', { agentId: name.split('-')[0], cwd: '/srv/probe/ws' });
  t.log.appendMany(recorded(name).map((m) => ({ sessionId: 's', ...m })));
  return t;
}

describe('transcripts and exports of recorded agent sessions', () => {
  it('Claude Code (client fs + terminals): prompt, edit with diff, fs write, terminal output, answer', async () => {
    const t = await withRecorded('reg-claude-code-acp-tools');
    const md = t.history.export('s', 'markdown');
    expect(md.mimeType).toBe('text/markdown');
    expect(md.fileName).toMatch(/^\d{4}-\d{2}-\d{2} .+\.md$/);
    expect(md.text).toContain('### User');
    expect(md.text).toContain('<<write:/srv/probe/ws/reg-claude.txt:Hello from claude-code-acp 0.16.0>>');
    expect(md.text).toContain('#### Tool: Write /srv/probe/ws/reg-claude.txt (edit, completed)');
    expect(md.text).toContain('+Hello from claude-code-acp 0.16.0');
    expect(md.text).toContain('#### Wrote `/srv/probe/ws/reg-claude.txt`');
    expect(md.text).toMatch(/Output \(exit 0\):\n\n```text\nHello from claude-code-acp 0.16.0SHELL-OK\n```/);
    expect(md.text).toContain('fake-llm: all 2 step(s) done.');

    const json = JSON.parse(t.history.export('s', 'json').text) as { format: string; session: HistorySession; entries: Array<{ kind: string; entry?: ToolCallEntry }> };
    expect(json.format).toBe('switchboard.session');
    expect(json.session.id).toBe('s');
    expect(json.entries.map((e) => e.kind)).toEqual(['prompt', 'agent', 'tool', 'write', 'agent', 'tool', 'agent']);
    expect(Object.values(json.entries[5]!.entry!.storedTerminals ?? {})[0]!.output).toBe('Hello from claude-code-acp 0.16.0SHELL-OK\n');

    // The same content is searchable, and the tool call is found by its terminal output.
    const hits = t.history.search({ query: 'shell ok', limit: 10, perSession: 10 }).hits;
    expect(hits.map((h) => h.kind)).toContain('tool');
  });

  it('Claude Agent terminal output sent in _meta is kept with its tool call', async () => {
    const t = await withRecorded('claude-terminal-meta');
    const tool = t.history.entries({ sessionId: 's', offset: 0, limit: 50 }).entries.map((e) => e.entry).find((e): e is ToolCallEntry => e?.kind === 'tool_call' && e.toolKind === 'execute')!;
    expect(tool.title).toBe('echo TERMINAL-META-TEST');
    expect(Object.values(tool.metaTerminals ?? {})[0]).toMatchObject({ output: 'TERMINAL-META-TEST', exit: { exitCode: 0 } });
    expect(t.history.search({ query: 'terminal meta test', limit: 5, perSession: 5 }).hits[0]!.kind).toBe('tool');
  });

  it('Gemini, Qwen and Claude tool sessions index without surprises; a cancelled turn is not a failure', async () => {
    for (const name of ['gemini-tools', 'qwen-tools', 'claude-tools', 'claude-cancel', 'claude-lifecycle-load', 'qwen-plan']) {
      const t = await withRecorded(name);
      const [session] = t.history.list({ limit: 5, offset: 0 }).sessions;
      expect(session!.messageCount, name).toBe(recorded(name).length);
      expect(session!.failedTurns, name).toBe(0);
      expect(session!.turnCount, name).toBeGreaterThan(0);
      t.db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
      const exported = t.history.export('s', 'markdown').text;
      expect(exported.length, name).toBeGreaterThan(100);
    }
    const qwen = stores.find((s) => s.history.list({ limit: 1, offset: 0 }).sessions[0]!.agentId === 'qwen' && s.history.search({ query: 'qwen-hello.txt', limit: 5, perSession: 5 }).hits.length > 0);
    expect(qwen).toBeDefined();
  });

  it('names the agent as the user knows it in a Markdown export, not by its internal id', async () => {
    const t = await withRecorded('reg-claude-code-acp-tools');
    expect(t.history.export('s', 'markdown').text).toContain('- Agent: reg\n');
    t.db
      .prepare(
        `INSERT OR IGNORE INTO agents (id, name, source, command, args_json, env_json, cwd, version, registry_id, created_at, updated_at)
         VALUES ('reg', 'x', 'custom', 'x', '[]', '{}', NULL, NULL, NULL, 0, 0)`,
      )
      .run();
    t.db.prepare("UPDATE agents SET name = 'Claude Code' WHERE id = 'reg'").run();
    expect(t.history.export('s', 'markdown').text).toContain('- Agent: Claude Code\n');
  });

  it('builds the same transcript from messages in memory (for exports and reopening a session)', () => {
    const msgs = recorded('reg-claude-code-acp-tools').map((m, i) => ({ ...m, sessionId: 's', seq: i + 1 }));
    const { entries, state } = buildTranscript('s', msgs);
    expect(entries.flatMap((e) => (e.entry?.kind === 'tool_call' ? [e.entry.status] : []))).toEqual(['completed', 'completed']);
    expect(state).toMatchObject({ turnCount: 1, toolCallCount: 2, filesTouched: 1, filesEdited: 1, lastStopReason: 'end_turn' });
  });

  it('renders unified diffs and safe file names', () => {
    expect(unifiedDiff('a\nb\nc\nd', 'a\nB\nc\nd\ne', '/src/x.ts')).toBe(['--- a/src/x.ts', '+++ b/src/x.ts', '@@ -1,4 +1,5 @@', ' a', '-b', '+B', ' c', ' d', '+e'].join('\n'));
    expect(unifiedDiff(null, 'new file', 'n.txt')).toBe(['--- /dev/null', '+++ b/n.txt', '@@ -0,0 +1,1 @@', '+new file'].join('\n'));
    const session = { title: 'Fix: a/b\\c <d> "e"?*|', createdAt: Date.UTC(2025, 2, 4) } as HistorySession;
    expect(exportFileName(session, 'md')).toBe('2025-03-04 Fix a b c d e.md');
    expect(exportFileName({ ...session, title: '' }, 'json')).toBe('2025-03-04 session.json');
  });
});
