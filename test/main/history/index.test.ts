import { storedText } from '../../../src/main/core/store/compression';
import { encodeBlock, MAX_PACKED } from '../../../src/main/core/store/message-log';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallEntry } from '../../../src/shared/acp-thread';
import { Acp, createStore, turn, type TestStore } from './acp';

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
async function store(): Promise<TestStore> {
  const s = await createStore();
  stores.push(s);
  return s;
}

const entries = (t: TestStore, sessionId = 's1') =>
  (
    t.db.prepare("SELECT kind, seq, last_seq AS lastSeq, turn, failed, text FROM history_entries WHERE session_id = ? AND kind <> 'title' ORDER BY seq").all(sessionId) as Array<{
      kind: string;
      seq: number;
      lastSeq: number;
      turn: number;
      failed: number;
      text: string | Uint8Array | null;
    }>
  ).map((r) => ({ ...r, text: storedText(r.text, 'entry') }));
const search = (t: TestStore, query: string, extra: Record<string, unknown> = {}) =>
  t.history.search({ query, limit: 50, perSession: 10, ...extra }).hits;
const ftsOk = (t: TestStore) => t.db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");

describe('history index', () => {
  it('coalesces a streamed agent message into one entry that phrase search finds across chunk boundaries', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    // 5-character chunks: "token refresh" is split mid-word several times.
    t.append('s1', turn(acp, 'Where is the auth bug?', 'The authentication bug was in the token refresh of the login handler.', 5));
    const list = entries(t);
    expect(list.map((e) => e.kind)).toEqual(['prompt', 'agent']);
    expect(list[1]!.text).toBe('The authentication bug was in the token refresh of the login handler.');
    expect(list[1]!.lastSeq - list[1]!.seq).toBe(13); // 14 chunks in one entry

    const hits = search(t, '"token refresh"');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.kind).toBe('agent');
    expect(hits[0]!.seq).toBe(list[1]!.seq);
    const { text, highlights } = hits[0]!.snippet;
    expect(highlights.map((h) => text.slice(h.start, h.end))).toEqual(['token refresh']);
    ftsOk(t);
  });

  it('keeps extending the open message when its chunks arrive in separate write batches', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('explain the cache');
    await t.log.append({ sessionId: 's1', ...p });
    for (const chunk of ['The cache ', 'invalida', 'tion happens in ', 'the middleware.']) {
      // Each append resolves after its own transaction (one batch per tick).
      await t.log.append({ sessionId: 's1', ...acp.agent(chunk) });
    }
    await t.log.append({ sessionId: 's1', ...acp.stop(p.id) });
    expect(entries(t).map((e) => [e.kind, e.text])).toEqual([
      ['prompt', null],
      ['agent', 'The cache invalidation happens in the middleware.'],
    ]);
    expect(search(t, 'invalidation middleware')).toHaveLength(1);
    ftsOk(t);
  });

  it('starts a new entry when the kind changes, a tool call intervenes or the messageId changes', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('go');
    t.append('s1', [
      p,
      acp.thought('Let me think '),
      acp.thought('about it.'),
      acp.agent('First part.', 'm1'),
      acp.usage(), // not an entry: does not break the message
      acp.agent(' Still first.', 'm1'),
      acp.agent('Second message.', 'm2'),
      acp.tool({ toolCallId: 'c1', title: 'Read file', kind: 'read', status: 'pending' }),
      acp.agent('After the tool.'),
      acp.stop(p.id),
    ]);
    expect(entries(t).map((e) => [e.kind, e.text])).toEqual([
      ['prompt', null],
      ['thought', 'Let me think about it.'],
      ['agent', 'First part. Still first.'],
      ['agent', 'Second message.'],
      ['tool', null],
      ['agent', 'After the tool.'],
    ]);
  });

  it('indexes tool calls: title, file paths, diffs, terminal output, and fs writes', async () => {
    const t = await store();
    t.addSession('s1', { cwd: '/home/u/app' });
    const acp = new Acp();
    const p = acp.prompt('fix the login');
    t.append('s1', [
      p,
      acp.tool({ toolCallId: 'edit1', title: 'Edit login.ts', kind: 'edit', status: 'pending', locations: [{ path: '/home/u/app/src/auth/login.ts', line: 3 }] }),
      acp.toolUpdate({
        toolCallId: 'edit1',
        status: 'completed',
        content: [{ type: 'diff', path: '/home/u/app/src/auth/login.ts', oldText: 'return null;', newText: 'return refreshSessionToken(user);' }],
      }),
      acp.tool({ toolCallId: 'run1', title: 'Run the tests', kind: 'execute', status: 'in_progress', rawInput: { command: 'npm test' }, content: [{ type: 'terminal', terminalId: 'term-1' }] }),
      ...acp.terminalOutput('term-1', 'FAIL src/auth/login.test.ts\n  ECONNREFUSED 127.0.0.1:5432\n', 1),
      acp.toolUpdate({ toolCallId: 'run1', status: 'failed' }),
      acp.write('/home/u/app/README.md', '# App\nSetup notes for the postgres container.'),
      acp.stop(p.id),
    ]);
    const kinds = entries(t).map((e) => e.kind);
    expect(kinds).toEqual(['prompt', 'tool', 'tool', 'write']);

    expect(search(t, 'refreshSessionToken')[0]).toMatchObject({ kind: 'tool', toolTitle: 'Edit login.ts' });
    expect(search(t, 'login.ts').map((h) => h.toolTitle)).toContain('Edit login.ts');
    expect(search(t, 'src/auth/login').map((h) => h.toolTitle)).toContain('Edit login.ts');
    expect(search(t, 'auth/login.ts')[0]!.snippet.highlights.length).toBeGreaterThan(0);
    // Terminal output is found through the tool call that ran it.
    const run = search(t, 'ECONNREFUSED');
    expect(run).toHaveLength(1);
    expect(run[0]).toMatchObject({ kind: 'tool', toolTitle: 'Run the tests' });
    expect(search(t, 'postgres container')[0]!.kind).toBe('write');
    expect(search(t, 'README.md')[0]!.kind).toBe('write');

    const [session] = t.history.list({ limit: 10, offset: 0 }).sessions;
    expect(session).toMatchObject({ toolCallCount: 2, failedToolCalls: 1, filesTouched: 2, filesEdited: 2, turnCount: 1, lastStopReason: 'end_turn' });

    const page = t.history.entries({ sessionId: 's1', offset: 0, limit: 10 });
    const toolCall = (id: string) => page.entries.map((e) => e.entry).find((e): e is ToolCallEntry => e?.kind === 'tool_call' && e.toolCallId === id)!;
    const tool = toolCall('run1');
    expect(tool.status).toBe('failed');
    expect(tool.storedTerminals).toEqual({ 'term-1': { output: 'FAIL src/auth/login.test.ts\n  ECONNREFUSED 127.0.0.1:5432\n', exit: { exitCode: 1, signal: null }, truncated: false } });
    const edit = toolCall('edit1');
    expect(edit.content.filter((c) => c.type === 'diff')).toEqual([{ type: 'diff', path: '/home/u/app/src/auth/login.ts', oldText: 'return null;', newText: 'return refreshSessionToken(user);' }]);
    ftsOk(t);
  });

  it('counts failed turns (refusal, error, token limit) and marks their entries for the failed-only filter', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    const ok = turn(acp, 'rename the database column', 'Renamed the column in the migration.');
    const refused = turn(acp, 'drop the production database', 'I will not drop the production database.', 10, 'refusal');
    const p = acp.prompt('migrate the database again');
    t.append('s1', [...ok, ...refused, p, acp.agent('Running the database migration'), acp.error(p.id, 'Rate limit exceeded')]);

    const [session] = t.history.list({ limit: 10, offset: 0 }).sessions;
    expect(session).toMatchObject({ turnCount: 3, failedTurns: 2, lastStopReason: 'error' });
    expect(search(t, 'database')).toHaveLength(5);
    const failed = search(t, 'database', { failedOnly: true });
    expect(new Set(failed.map((h) => h.turn))).toEqual(new Set([2, 3]));
    expect(failed.every((h) => h.failed)).toBe(true);
    // The error itself is searchable.
    expect(search(t, 'rate limit')[0]).toMatchObject({ kind: 'stop', turn: 3 });
    expect(t.history.list({ failedOnly: true, limit: 10, offset: 0 }).sessions.map((s) => s.id)).toEqual(['s1']);
  });

  it('titles a session by the agent’s session_info_update, else by the first line of the first prompt', async () => {
    const t = await store();
    t.addSession('a');
    t.addSession('b');
    const acp = new Acp();
    t.append('a', turn(acp, '\n  Investigate   the flaky snapshot test\nmore detail here', 'ok'));
    t.append('b', [...turn(acp, 'hello', 'hi'), acp.title('Greeting the agent')]);
    const byId = Object.fromEntries(t.history.list({ limit: 10, offset: 0 }).sessions.map((s) => [s.id, s]));
    expect(byId.a).toMatchObject({ title: 'Investigate the flaky snapshot test', titleSource: 'prompt' });
    expect(byId.b).toMatchObject({ title: 'Greeting the agent', titleSource: 'agent' });
    // The agent's title is searchable and opens the session at the top.
    expect(search(t, 'greeting')[0]).toMatchObject({ sessionId: 'b', kind: 'title' });
  });

  it('does not index a session/load replay twice, but indexes it for a session that has no history yet', async () => {
    const t = await store();
    t.addSession('s1');
    t.addSession('s2');
    const acp = new Acp();
    t.append('s1', turn(acp, 'write the parser', 'The parser is written.'));
    for (const sid of ['s1', 's2']) {
      const load = acp.load();
      t.append(sid, [load, acp.user('write the parser'), acp.agent('The parser is written.'), acp.result(load.id)]);
    }
    t.append('s1', turn(acp, 'now the lexer', 'Lexer done.'));
    expect(entries(t, 's1').map((e) => e.kind)).toEqual(['prompt', 'agent', 'prompt', 'agent']);
    expect(entries(t, 's2').map((e) => [e.kind, e.turn])).toEqual([
      ['user', 1],
      ['agent', 1],
    ]);
    expect(t.history.list({ limit: 10, offset: 0 }).sessions.find((s) => s.id === 's2')).toMatchObject({ title: 'write the parser', turnCount: 1 });
  });

  it('survives malformed and hostile messages: they are logged, counted and skipped', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    const junk = [
      { direction: 'a2c' as const, method: 'session/update', body: 'not json at all' },
      { direction: 'a2c' as const, method: 'session/update', body: '[1,2,3]' },
      { direction: 'a2c' as const, method: 'session/update', body: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { update: { sessionUpdate: 'tool_call', toolCallId: 42, title: { x: 1 } } } }) },
      { direction: 'a2c' as const, method: 'session/update', body: JSON.stringify({ method: 'session/update', params: { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 7 } } } }) },
      { direction: 'a2c' as const, method: 'session/update', body: JSON.stringify({ method: 'session/update', params: { update: { sessionUpdate: 'tool_call_update', toolCallId: 'x', locations: 'nope', content: [null, 5, { type: 'diff' }] } } }) },
      { direction: 'a2c' as const, method: null, body: JSON.stringify({ id: { evil: true }, result: { stopReason: 'refusal' } }) },
      acp.agent('marker\u0001with\u0002control characters'),
    ];
    const tail = turn(acp, 'still works', 'yes it still works');
    t.append('s1', [...junk, ...tail]);
    expect(t.db.prepare('SELECT sum(n) AS n FROM acp_messages').get()).toEqual({ n: junk.length + tail.length });
    expect(search(t, 'still works').length).toBe(2);
    expect(search(t, 'markerwith')).toHaveLength(1); // control characters are not indexed
    const [session] = t.history.list({ limit: 10, offset: 0 }).sessions;
    expect(session!.messageCount).toBe(junk.length + tail.length);
    expect(session!.failedTurns).toBe(0);
    ftsOk(t);
  });

  it('never loses messages when indexing fails, and catches up once it works again', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    // Break the index: every new FTS row is refused.
    t.db.exec("CREATE TRIGGER break_index BEFORE INSERT ON history_entries BEGIN SELECT RAISE(ABORT, 'index broken'); END");
    const errors: unknown[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => void errors.push(a);
    try {
      const persisted = await Promise.all(turn(acp, 'keep this message', 'and this answer about kubernetes').map((m) => t.log.append({ sessionId: 's1', ...m })));
      expect(persisted.map((m) => m.seq)).toEqual(persisted.map((_, i) => i + 1));
    } finally {
      console.error = orig;
    }
    expect(errors.length).toBeGreaterThan(0);
    expect((t.db.prepare('SELECT sum(n) AS n FROM acp_messages').get() as { n: number }).n).toBeGreaterThan(3);
    expect(search(t, 'kubernetes')).toHaveLength(0);
    t.db.exec('DROP TRIGGER break_index');
    await t.history.whenIndexed();
    expect(search(t, 'kubernetes')).toHaveLength(1);
    expect(entries(t).map((e) => e.kind)).toEqual(['prompt', 'agent']);
    ftsOk(t);
  });

  it('rebuilds the whole index from the log with the same result (recovery)', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    t.append('s1', [...turn(acp, 'profile the slow query', 'The planner picked a full scan.'), acp.title('Slow query')]);
    await t.history.rename('s1', 'Query planner');
    const before = t.db.prepare("SELECT kind, seq, text, detail FROM history_entries WHERE kind <> 'title' ORDER BY id").all();
    t.history.index().rebuild();
    expect(t.db.prepare("SELECT kind, seq, text, detail FROM history_entries WHERE kind <> 'title' ORDER BY id").all()).toEqual(before);
    expect(search(t, 'planner full scan')).toHaveLength(1);
    expect(t.history.list({ limit: 5, offset: 0 }).sessions[0]).toMatchObject({ title: 'Query planner', titleSource: 'custom', turnCount: 1 });
    ftsOk(t);
  });
});

describe('the catch-up after a bulk write (an import)', () => {
  it('indexes compressed blocks in slices of about the messages asked for, not of rows (a block holds hundreds)', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    const messages = [];
    for (let k = 0; k < 12; k++) messages.push(...turn(acp, `question ${k}`, `answer${k}word `.repeat(300), 1));
    expect(messages.length).toBeGreaterThan(3000);
    const bulk = t.history.bulkWrite();
    for (let i = 0; i < messages.length; i += MAX_PACKED) {
      const run = messages.slice(i, i + MAX_PACKED).map((m, k) => ({ ...m, ts: 1_000 + i + k }));
      t.log.appendBlocks('s1', [{ n: run.length, ts: run[0]!.ts, direction: run[0]!.direction, method: run[0]!.method, body: encodeBlock(run, run[0]!.ts) }]);
    }
    bulk.dispose();
    const index = t.history.index();
    const pending = () => index.status().pendingMessages;
    expect(pending()).toBe(messages.length);
    const slices: number[] = [];
    for (let before = pending(); !index.catchUp(1000, 1); before = pending()) slices.push(before - pending());
    // Each slice took at least the 1000 asked for, and at most one block more.
    expect(slices.length).toBeGreaterThanOrEqual(Math.floor(messages.length / (1000 + MAX_PACKED)));
    for (const n of slices.slice(0, -1)) expect(n).toBeGreaterThanOrEqual(1000), expect(n).toBeLessThan(1000 + MAX_PACKED);
    expect(search(t, 'answer11word').map((h) => h.kind)).toEqual(['agent']);
    expect(search(t, 'question').length).toBe(10);
    ftsOk(t);
  });
});
