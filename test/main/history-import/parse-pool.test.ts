import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryImportService } from '../../../src/main/core/history-import/import-service';
import { readNewLines } from '../../../src/main/core/history-import/line-reader';
import { blocksOf, parseFile, WIRE_KINDS, type ParsedFile, type ParseJob } from '../../../src/main/core/history-import/parse-file';
import { PARSE_THREADS, parseThreadsAlive } from '../../../src/main/core/history-import/parse-pool';
import { expandRows, readMessages } from '../../../src/main/core/store/message-log';
import { repoRoot, tempDir } from '../../support/app-server';
import { createStore, type TestStore } from '../history/acp';

/**
 * A large import reads, parses and compresses its files in threads of their own while the main thread writes: what
 * it imports is what an import in one thread imports, and the threads end with the import, when it is cancelled, and
 * when the service is disposed part way.
 */

/** A parsed file's messages as [ts, direction, method, body], from its blocks or its plain batch. */
function messagesOf(parsed: ParsedFile): Array<[number, string, string | null, string]> {
  if (!parsed.blocks) return parsed.wire.bodies.map((body, i) => [parsed.wire.ts[i]!, ...WIRE_KINDS[parsed.wire.kinds[i]!]!, body]);
  return blocksOf(parsed.blocks).flatMap((b) =>
    expandRows([{ id: 1, sessionId: 's', seq: 1, n: b.n, ts: b.ts, direction: b.direction, method: b.method, body: b.body }]).map((m): [number, string, string | null, string] => [m.ts, m.direction, m.method, m.body]),
  );
}

/** A Claude Code store of `n` sessions of a few KB, each naming its own word. */
function claudeStore(n: number): string {
  const home = tempDir('sb-import-thread-home-');
  for (let i = 0; i < n; i++) {
    const dir = join(home, '.claude/projects', `-work-p${i % 7}`);
    mkdirSync(dir, { recursive: true });
    const sessionId = `0000${i}-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`;
    const at = (k: number) => ({ sessionId, cwd: `/work/p${i % 7}`, timestamp: new Date(Date.UTC(2025, 5, 1, 0, i, k)).toISOString(), isSidechain: false });
    const lines = [
      { ...at(0), type: 'user', message: { role: 'user', content: `find the word${i}x marker` } },
      { ...at(1), type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `grep -rn word${i}x .` } }] } },
      { ...at(2), type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `notes.md:1: word${i}x ${'filler '.repeat(300)}` }] } },
      { ...at(3), type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Found it.' }] } },
    ];
    writeFileSync(join(dir, `${sessionId}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  }
  return home;
}

/** Codex rollouts in `home`, each naming its own word in a shell call's output. */
function addCodexRollouts(home: string, n: number): void {
  const dir = join(home, '.codex/sessions/2025/06/02');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const ts = (k: number) => new Date(Date.UTC(2025, 5, 2, 0, i, k)).toISOString();
    const lines = [
      { timestamp: ts(0), type: 'session_meta', payload: { id: `cdx-${i}`, cwd: `/work/c${i}`, cli_version: '0.63.0' } },
      { timestamp: ts(1), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `look for codex${i}y` }] } },
      { timestamp: ts(2), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `rg codex${i}y`] }), call_id: `c${i}` } },
      { timestamp: ts(3), type: 'response_item', payload: { type: 'function_call_output', call_id: `c${i}`, output: JSON.stringify({ output: `notes.md:3: codex${i}y ${'text '.repeat(200)}`, metadata: { exit_code: 0 } }) } },
      { timestamp: ts(4), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is in notes.md.' }] } },
    ];
    writeFileSync(join(dir, `rollout-2025-06-02T00-00-00-${i}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  }
}

describe('History → Import: the parsing thread of a large import', () => {
  let t: TestStore;
  let home = '';
  let importer: HistoryImportService | null = null;
  const make = (bulkMinBytes: number) =>
    new HistoryImportService({ db: () => t.db, log: () => t.log, home, env: {}, keep: () => [], agentFor: () => null, deleteSessions: (ids) => t.history.delete(ids), bulk: () => t.history.bulkWrite(), bulkMinBytes });
  const sessions = () => (t.db.prepare("SELECT count(*) AS n FROM sessions WHERE imported_from = 'claude-code'").get() as { n: number }).n;
  const messages = () => (t.db.prepare('SELECT coalesce(sum(n), 0) AS n FROM acp_messages').get() as { n: number }).n;
  /** Every imported session's messages, by the agent's session id. */
  const logged = () =>
    (t.db.prepare("SELECT id, acp_session_id AS agentId FROM sessions WHERE imported_from = 'claude-code' ORDER BY acp_session_id").all() as Array<{ id: string; agentId: string }>).map((s) => ({
      agentId: s.agentId,
      messages: readMessages(t.db, s.id).map((m) => [m.seq, m.direction, m.method, m.body]),
      lastTs: Math.max(...readMessages(t.db, s.id).map((m) => m.ts)),
    }));
  /** A large import of `n` sessions, started, with its threads running. */
  const startLarge = async (n: number): Promise<void> => {
    home = claudeStore(n);
    importer = make(1);
    importer.start(['claude-code']);
    await new Promise((r) => setImmediate(r));
    expect(parseThreadsAlive()).toBe(PARSE_THREADS);
  };

  beforeEach(async () => {
    t = await createStore();
  });
  afterEach(() => {
    importer?.dispose();
    t.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('imports what an import in one thread imports, and its threads end with it', async () => {
    home = claudeStore(60);
    // In one thread (below the size of a large import) into one store, then in parsing threads into another.
    importer = make(Number.MAX_SAFE_INTEGER);
    importer.start(['claude-code']);
    await importer.settled();
    const inOne = { sessions: sessions(), messages: messages(), progress: importer.status(), logged: logged() };
    // (A small import writes plain rows, packed once the session is quiet.)
    expect(t.db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(body) = 'blob'").get()).toEqual({ n: 0 });
    importer.dispose();
    t.close();
    t = await createStore();
    importer = make(1);
    importer.start(['claude-code']);
    await new Promise((r) => setImmediate(r));
    expect(parseThreadsAlive()).toBe(PARSE_THREADS);
    await importer.settled();
    expect(importer.status()).toEqual(inOne.progress);
    expect({ sessions: sessions(), messages: messages() }).toEqual({ sessions: inOne.sessions, messages: inOne.messages });
    // A large import writes its messages compressed, as the packer would: the same messages, in the same order.
    expect(t.db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(body) <> 'blob'").get()).toEqual({ n: 0 });
    // (Each keeps its record's time: a plain row of several updates keeps its first one's.)
    expect(logged().map(({ lastTs: _, ...rest }) => rest)).toEqual(inOne.logged.map(({ lastTs: _, ...rest }) => rest));
    expect(logged().map((s) => s.lastTs)).toEqual(logged().map((s) => Date.UTC(2025, 5, 1, 0, Number(s.agentId.slice(4, s.agentId.indexOf('-'))), 3)));
    await t.history.whenIndexed();
    expect(t.history.search({ query: 'word41x', limit: 10, perSession: 1 }).hits).toHaveLength(1);
    await expect.poll(parseThreadsAlive, { timeout: 10_000 }).toBe(0);
    // A rescan with nothing changed starts no thread.
    importer.start(['claude-code']);
    await new Promise((r) => setImmediate(r));
    expect(parseThreadsAlive()).toBe(0);
    await importer.settled();
  });

  it('imports two stores through its threads as one queue, each as an import in one thread does', async () => {
    home = claudeStore(30);
    addCodexRollouts(home, 20);
    const all = () =>
      (t.db.prepare('SELECT imported_from AS source, acp_session_id AS agentId, id FROM sessions WHERE imported_from IS NOT NULL ORDER BY imported_from, acp_session_id').all() as Array<{ source: string; agentId: string; id: string }>).map((r) => ({
        ...r,
        id: undefined,
        bodies: readMessages(t.db, r.id).map((m) => m.body),
      }));
    importer = make(Number.MAX_SAFE_INTEGER);
    importer.start(['claude-code', 'codex']);
    await importer.settled();
    const inOne = all();
    expect(inOne.filter((s) => s.source === 'codex')).toHaveLength(20);
    importer.dispose();
    t.close();
    t = await createStore();
    importer = make(1);
    importer.start(['claude-code', 'codex']);
    await importer.settled();
    expect(importer.status()).toMatchObject({ filesDone: 50, sessions: 50, error: null });
    expect(all()).toEqual(inOne);
    await t.history.whenIndexed();
    expect(t.history.search({ query: 'codex17y', limit: 10, perSession: 1 }).hits).toHaveLength(1);
  });

  it('cancelled part way, its threads end; a later run imports the rest, each session once', async () => {
    // Cancelled as its first files are written.
    await startLarge(400);
    importer!.cancel();
    await importer!.settled();
    expect(importer!.status()).toMatchObject({ running: false, cancelled: true });
    expect(sessions()).toBeLessThan(400);
    await expect.poll(parseThreadsAlive, { timeout: 10_000 }).toBe(0);
    importer!.start(['claude-code']);
    await importer!.settled();
    expect(importer!.status()).toMatchObject({ cancelled: false, error: null, filesDone: 400 });
    expect(sessions()).toBe(400);
    const perSession = t.db.prepare("SELECT count(*) AS n FROM acp_messages m JOIN sessions s ON s.id = m.session_id WHERE s.imported_from = 'claude-code' GROUP BY m.session_id").all() as Array<{ n: number }>;
    expect(new Set(perSession.map((r) => r.n)).size).toBe(1);
  });

  it('disposed part way (the app closing), its threads end', async () => {
    await startLarge(400);
    importer!.dispose();
    await importer!.settled();
    await expect.poll(parseThreadsAlive, { timeout: 10_000 }).toBe(0);
  });

  it('the built app runs the thread from out/main/import-worker.cjs, which parses and compresses a session as the sources do', async () => {
    home = claudeStore(1);
    const dir = join(home, '.claude/projects/-work-p0');
    const path = join(dir, readdirSync(dir)[0]!);
    const job: ParseJob = { source: 'claude-code', path, offset: 0, state: null, mtimeMs: statSync(path).mtimeMs, blocks: true };
    // The file the packaged app evaluates (npm test builds the app first), run as parse-pool.ts runs it.
    const worker = new Worker(readFileSync(join(repoRoot, 'out/main/import-worker.cjs'), 'utf8'), { eval: true, workerData: { stop: new Int32Array(new SharedArrayBuffer(4)) } });
    try {
      const built = await new Promise<ParsedFile>((resolve, reject) => {
        worker.once('message', (m: { id: number; parsed: ParsedFile }) => resolve(m.parsed));
        worker.once('error', reject);
        worker.postMessage({ ...job, id: 1 });
      });
      const plain = parseFile({ ...job, blocks: false }, readNewLines, () => false);
      expect(built.failed).toBeUndefined();
      expect(built.wire.bodies).toEqual([]);
      expect(messagesOf(built).length).toBeGreaterThan(2);
      expect(messagesOf(built).map((m) => m[3]).join('\n')).toContain('word0x');
      expect(messagesOf(built)).toEqual(messagesOf(plain));
      const { wire: _w, blocks: _b, ...rest } = built;
      const { wire: _pw, ...plainRest } = plain;
      expect(rest).toEqual(plainRest);
    } finally {
      await worker.terminate();
    }
  });
});
