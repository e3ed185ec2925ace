import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportSourceId } from '../../../src/shared/contract/history-import';
import { HistoryImportService, type HistoryImportDeps } from '../../../src/main/core/history-import/import-service';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { StorePacker } from '../../../src/main/core/history/store-packer';
import { tempDir } from '../../support/app-server';
import { createStore, type TestStore } from '../history/acp';

const FIXTURES = join(__dirname, '../../fixtures/agent-histories');

/** A HOME holding the agents' stores as the fixtures have them. */
function homeWith(...dirs: string[]): string {
  const home = tempDir('sb-import-home-');
  for (const d of dirs) cpSync(join(FIXTURES, d), home, { recursive: true });
  return home;
}

function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

describe('History → Import', () => {
  let t: TestStore;
  let home: string;
  let importer: HistoryImportService;
  const deleted: string[] = [];
  const make = (h: string, agents: Partial<Record<ImportSourceId, string>> = {}, keep: ImportSourceId[] = [], more: Partial<HistoryImportDeps> = {}) =>
    new HistoryImportService({
      ...more,
      watch: (root, onEvent) => new LocalHost().watch(root, onEvent),
      db: () => t.db,
      log: () => t.log,
      home: h,
      env: {},
      keep: () => keep,
      agentFor: (s) => agents[s] ?? null,
      deleteSessions: (ids) => {
        deleted.push(...ids);
        t.history.delete(ids);
      },
    });
  const run = async (sources: ImportSourceId[]) => {
    importer.start(sources);
    await importer.settled();
    return importer.status();
  };
  const search = (query: string) => t.history.search({ query, limit: 50, perSession: 10 }).hits;
  const listed = () => t.history.list({ limit: 100, offset: 0 }).sessions;

  beforeEach(async () => {
    t = await createStore();
    deleted.length = 0;
  });
  afterEach(() => {
    importer?.dispose();
    t.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('finds each store and says how many sessions, how large, and from when to when', async () => {
    home = homeWith('claude-code-0.16.0', 'gemini-0.61.0', 'codex-0.63.0');
    importer = make(home);
    const found = Object.fromEntries((await importer.scan()).map((s) => [s.source, s]));
    expect(found['claude-code']).toMatchObject({ found: true, sessions: 1, imported: 0, name: 'Claude Code' });
    expect(found['claude-code']!.bytes).toBeGreaterThan(5000);
    // Gemini CLI's second file holds its preamble only (a file it starts as it starts): no session.
    expect(found['gemini-cli']).toMatchObject({ found: true, sessions: 1 });
    expect(found.codex).toMatchObject({ found: true, sessions: 1 });
    expect(found['qwen-code']).toMatchObject({ found: false, sessions: 0, from: null });
    expect(found.opencode).toMatchObject({ found: false });
  });

  it('a Gemini CLI chat file holding only its preamble is no session (not counted nor imported) until a prompt is written to it', async () => {
    home = homeWith('gemini-0.61.0');
    importer = make(home);
    const chats = join(home, '.gemini/tmp/sb-fixture-gemini-yfh6up/chats');
    const empty = join(chats, 'session-2026-11-26T08-32-73fa2bfa.jsonl');
    expect((await importer.scan()).find((s) => s.source === 'gemini-cli')).toMatchObject({ sessions: 1 });
    expect(await run(['gemini-cli'])).toMatchObject({ sessions: 1, error: null });
    expect(listed().filter((s) => s.importedFrom === 'gemini-cli')).toHaveLength(1);
    appendFileSync(empty, `${JSON.stringify({ id: 'u1', timestamp: '2026-11-26T08:40:00.000Z', type: 'user', content: [{ text: 'plan the walrus migration' }] })}\n`);
    expect((await importer.scan()).find((s) => s.source === 'gemini-cli')).toMatchObject({ sessions: 2 });
    expect(await run(['gemini-cli'])).toMatchObject({ sessions: 1, error: null });
    expect(listed().filter((s) => s.importedFrom === 'gemini-cli')).toHaveLength(2);
    expect(search('walrus').length).toBe(1);
  });

  it('imports every agent: searchable by a word of a tool output and by a file name, with agent, folder, title and dates', async () => {
    home = homeWith('claude-code-0.16.0', 'gemini-0.61.0', 'qwen-0.24.4', 'codex-0.63.0');
    mkdirSync(join(home, '.local/share/opencode'), { recursive: true });
    const oc = new Database(join(home, '.local/share/opencode/opencode.db'));
    oc.exec(readFileSync(join(FIXTURES, 'opencode-1.18/opencode.sql'), 'utf8'));
    oc.close();
    importer = make(home, { 'claude-code': 'claude-agent' });
    const progress = await run(['claude-code', 'gemini-cli', 'qwen-code', 'codex', 'opencode']);
    expect(progress).toMatchObject({ running: false, cancelled: false, error: null, sessions: 5, keptAsText: 1 });
    const sessions = listed();
    expect(sessions.map((s) => s.importedFrom).sort()).toEqual(['claude-code', 'codex', 'gemini-cli', 'opencode', 'qwen-code']);
    const codex = sessions.find((s) => s.importedFrom === 'codex')!;
    expect(codex).toMatchObject({ cwd: '/home/dev/inventory', agentId: 'cli:codex', turnCount: 2, toolCallCount: 4 /* 3 calls and the record kept as text */, title: 'Find why the stock report double-counts returns and fix it' });
    expect(codex.createdAt).toBe(Date.parse('2026-03-14T09:12:05.400Z'));
    expect(sessions.find((s) => s.importedFrom === 'claude-code')).toMatchObject({ agentId: 'claude-agent', turnCount: 2 });
    expect(sessions.find((s) => s.importedFrom === 'opencode')).toMatchObject({ title: 'Water the tomatoes on a schedule', cwd: '/home/dev/garden' });
    // A word of a shell command's output, in each agent's session.
    for (const marker of ['marmalade', 'quillfeather', 'hibiscus']) expect(search(marker).length, marker).toBeGreaterThan(0);
    expect(new Set(search('marmalade').map((h) => h.sessionId)).size).toBe(3);
    // A file name an agent wrote.
    expect(search('notes.md').length).toBeGreaterThan(0);
    // The transcript holds the diff the agent recorded.
    const claude = sessions.find((s) => s.importedFrom === 'claude-code')!;
    const entries = JSON.stringify(t.history.entries({ sessionId: claude.id, limit: 500, offset: 0 }));
    expect(entries).toContain('The quarterly zephyr report');
  });

  it('a rescan with nothing changed reads no file; a line appended to an open session is picked up, read from where it stopped', async () => {
    home = homeWith('claude-code-0.16.0');
    importer = make(home);
    await run(['claude-code']);
    const [file] = files(join(home, '.claude/projects')).filter((f) => f.endsWith('.jsonl'));
    const before = t.db.prepare('SELECT count(*) AS n FROM acp_messages').get() as { n: number };
    const again = await run(['claude-code']);
    expect(again.sessions).toBe(0);
    expect((t.db.prepare('SELECT count(*) AS n FROM acp_messages').get() as { n: number }).n).toBe(before.n);
    // The CLI goes on: a new prompt, and an answer still being written (no newline yet).
    const sessionId = JSON.parse(readFileSync(file!, 'utf8').split('\n')[1]!).sessionId as string;
    const record = (type: string, content: unknown) => JSON.stringify({ type, sessionId, cwd: '/tmp/x', timestamp: new Date().toISOString(), message: { role: type, content } });
    appendFileSync(file!, `${record('user', 'what about the pelican budget')}\n${record('assistant', [{ type: 'text', text: 'The pelican budget is fine' }]).slice(0, 40)}`);
    await run(['claude-code']);
    expect(search('pelican').map((h) => h.kind)).toEqual(['prompt']);
    expect(listed()).toHaveLength(1);
    // The answer's line is finished: only then is it read.
    appendFileSync(file!, `${record('assistant', [{ type: 'text', text: 'The pelican budget is fine' }]).slice(40)}\n`);
    await run(['claude-code']);
    expect(search('pelican').map((h) => h.kind).sort()).toEqual(['agent', 'prompt']);
    expect(listed()[0]!.turnCount).toBe(3);
  });

  it('a session Switchboard ran itself is shown once: the agent’s copy is linked, not imported', async () => {
    home = homeWith('claude-code-0.16.0');
    const [file] = files(join(home, '.claude/projects')).filter((f) => f.endsWith('.jsonl'));
    const acpId = JSON.parse(readFileSync(file!, 'utf8').split('\n')[1]!).sessionId as string;
    t.addSession('own');
    t.db.prepare('UPDATE sessions SET acp_session_id = ? WHERE id = ?').run(acpId, 'own');
    importer = make(home);
    await run(['claude-code']);
    expect(listed().map((s) => s.id)).toEqual(['own']);
    expect(t.db.prepare('SELECT linked, session_id FROM imported_files').get()).toEqual({ linked: 1, session_id: 'own' });
  });

  it('hostile stores: each bad file or line has its reason, and the import goes on', async () => {
    home = homeWith('claude-code-0.16.0');
    const project = join(home, '.claude/projects/-hostile');
    mkdirSync(project, { recursive: true });
    const secrets = tempDir('sb-import-outside-');
    writeFileSync(join(secrets, 'id_rsa.jsonl'), `${JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content: 'SECRET-KEY-MATERIAL' } })}\n`);
    symlinkSync(join(secrets, 'id_rsa.jsonl'), join(project, 'link.jsonl'));
    symlinkSync(secrets, join(home, '.claude/projects/-linked-folder'));
    execFileSync('mkfifo', [join(project, 'fifo.jsonl')]);
    const prompt = (sid: string, text: string) => JSON.stringify({ type: 'user', sessionId: sid, cwd: '/w', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: text } });
    // A 100 MB line between two good ones; invalid UTF-8; a truncated last line.
    const big = join(project, 'big.jsonl');
    writeFileSync(big, `${prompt('big', 'before the flood of albatross')}\n`);
    appendFileSync(big, `{"type":"user","x":"${'y'.repeat(100 * 1024 * 1024)}"}\n`);
    appendFileSync(big, `${prompt('big', 'after the flood of cormorant')}\n`);
    writeFileSync(join(project, 'latin1.jsonl'), Buffer.concat([Buffer.from(prompt('l1', 'caf').slice(0, -3)), Buffer.from([0xe9]), Buffer.from(' puffin"}}\n')]));
    writeFileSync(join(project, 'cut.jsonl'), `${prompt('cut', 'complete line of grebe')}\n{"type":"user","sessionId":"cut","message":{"role":"us`);
    writeFileSync(join(project, 'junk.jsonl'), 'this is not json\n');
    importer = make(home);
    const progress = await run(['claude-code']);
    rmSync(secrets, { recursive: true, force: true });
    const reasons = progress.skipped.map((s) => `${s.path.split('/').pop()}: ${s.reason}`);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^link\.jsonl: a symbolic link/),
        expect.stringMatching(/^-linked-folder: a symbolic link/),
        expect.stringMatching(/^fifo\.jsonl: a FIFO/),
        expect.stringMatching(/^big\.jsonl: line 2 .*over the 32 MB a line may have: skipped/),
        expect.stringMatching(/^latin1\.jsonl: line 1 .*not valid UTF-8/),
        expect.stringMatching(/^junk\.jsonl: line 1 .*not JSON/),
      ]),
    );
    expect(search('SECRET').length).toBe(0);
    expect(search('albatross').length).toBe(1);
    expect(search('cormorant').length).toBe(1);
    expect(search('puffin').length).toBe(1);
    expect(search('grebe').length).toBe(1);
    // The fixture's own session came through beside them.
    expect(search('marmalade').length).toBeGreaterThan(0);
  }, 120_000);

  it('50,000 tiny bad files: each skipped with its reason, counted, and the import finishes', async () => {
    home = tempDir('sb-import-home-');
    const dir = join(home, '.codex/sessions/2026/01/01');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 50_000; i++) writeFileSync(join(dir, `rollout-${i}.jsonl`), '{\n');
    importer = make(home);
    const progress = await run(['codex']);
    expect(progress).toMatchObject({ filesDone: 50_000, filesTotal: 50_000, skippedCount: 50_000, sessions: 0, error: null });
    expect(progress.skipped).toHaveLength(200);
    expect(progress.skipped[0]!.reason).toMatch(/not JSON/);
    // Removing 50,000 files takes a while on a busy disk: here, within the test's time, not the hook's.
    rmSync(home, { recursive: true, force: true });
    home = '';
  }, 180_000);

  it('kept up: a session file the agent starts, and a line it adds, are imported as they are written', async () => {
    home = homeWith('claude-code-0.16.0');
    importer = make(home, {}, ['claude-code']);
    importer.keepUp();
    await expect.poll(() => listed().length, { timeout: 20_000 }).toBe(1);
    const file = join(home, '.claude/projects/-work-later/0b5c8a3e-1f2d-4e6a-9b7c-8d9e0f1a2b3c.jsonl');
    mkdirSync(join(file, '..'), { recursive: true });
    const record = (content: string) => `${JSON.stringify({ type: 'user', sessionId: '0b5c8a3e-1f2d-4e6a-9b7c-8d9e0f1a2b3c', cwd: '/work/later', timestamp: new Date().toISOString(), message: { role: 'user', content } })}\n`;
    writeFileSync(file, record('plan the kingfisher launch'));
    await expect.poll(() => search('kingfisher').length, { timeout: 20_000, interval: 200 }).toBe(1);
    appendFileSync(file, record('then the wren follow-up'));
    await expect.poll(() => search('wren').length, { timeout: 20_000, interval: 200 }).toBe(1);
    expect(listed()).toHaveLength(2);
  });

  it('kept up: a file the watcher reports is read by the store\'s rules (a link to a session elsewhere is not followed)', async () => {
    home = homeWith('claude-code-0.16.0');
    importer = make(home, {}, ['claude-code']);
    importer.keepUp();
    await expect.poll(() => listed().length, { timeout: 20_000 }).toBe(1);
    const record = (id: string, content: string) => `${JSON.stringify({ type: 'user', sessionId: id, cwd: '/work/x', timestamp: new Date().toISOString(), message: { role: 'user', content } })}\n`;
    // A session file outside the store, linked into an existing project folder of it, beside a new session file.
    const folder = files(join(home, '.claude/projects')).find((f) => f.endsWith('.jsonl'))!.replace(/\/[^/]+$/, '');
    const outside = join(home, 'elsewhere.jsonl');
    writeFileSync(outside, record('5d7e0b1c-0000-4000-8000-000000000001', 'the heron secret'));
    symlinkSync(outside, join(folder, '5d7e0b1c-0000-4000-8000-000000000001.jsonl'));
    writeFileSync(join(folder, '5d7e0b1c-0000-4000-8000-000000000002.jsonl'), record('5d7e0b1c-0000-4000-8000-000000000002', 'the plover plan'));
    await expect.poll(() => search('plover').length, { timeout: 20_000, interval: 200 }).toBe(1);
    appendFileSync(outside, record('5d7e0b1c-0000-4000-8000-000000000001', 'more heron'));
    appendFileSync(join(folder, '5d7e0b1c-0000-4000-8000-000000000002.jsonl'), record('5d7e0b1c-0000-4000-8000-000000000002', 'then the avocet'));
    await expect.poll(() => search('avocet').length, { timeout: 20_000, interval: 200 }).toBe(1);
    expect(search('heron')).toEqual([]);
    expect(listed()).toHaveLength(2);
  });

  it('a large import is written first and indexed in one pass after it; a session growing later is searchable as it is written', async () => {
    home = homeWith('claude-code-0.16.0', 'gemini-0.61.0', 'qwen-0.24.4');
    importer = make(home, {}, [], { bulk: () => t.history.bulkWrite(), bulkMinBytes: 4096 });
    await run(['claude-code', 'gemini-cli', 'qwen-code']);
    // Every session is listed at once; their messages are indexed after the import, not batch by batch in it.
    expect(listed()).toHaveLength(3);
    const during = t.history.search({ query: 'marmalade', limit: 50, perSession: 10 });
    expect(during.indexing.done).toBe(false);
    expect(during.indexing.pendingMessages).toBeGreaterThan(0);
    await t.history.whenIndexed();
    expect(new Set(search('marmalade').map((h) => h.sessionId)).size).toBe(3);
    expect(search('notes.md').length).toBeGreaterThan(0);
    // Its sessions are queued for the store packer (their log rows); what it packs reads and searches the same.
    const texts = () => t.db.prepare("SELECT count(*) AS n FROM history_entries WHERE typeof(text) = 'text' AND length(text) >= 200").get() as { n: number };
    const before = t.history.export(listed()[0]!.id, 'markdown').text;
    const queued = t.db.prepare('SELECT session_id FROM store_compaction').all() as Array<{ session_id: string }>;
    expect(new Set(queued.map((q) => q.session_id))).toEqual(new Set(listed().map((s) => s.id)));
    new StorePacker(t.db, 0).step(Number.MAX_SAFE_INTEGER, 60_000, Date.now() + 1);
    expect(texts().n).toBe(0);
    expect(t.history.export(listed()[0]!.id, 'markdown').text).toBe(before);
    expect(new Set(search('marmalade').map((h) => h.sessionId)).size).toBe(3);
    // A line added to a session (less than bulkMinBytes) is indexed as it is written.
    const file = files(join(home, '.claude/projects')).find((f) => f.endsWith('.jsonl'))!;
    appendFileSync(file, `${JSON.stringify({ type: 'user', sessionId: '979273a2-287a-47ff-8713-00e4717d1c67', cwd: '/tmp/x', timestamp: new Date().toISOString(), message: { role: 'user', content: 'and the osprey checklist' } })}\n`);
    await run(['claude-code']);
    const after = t.history.search({ query: 'osprey', limit: 50, perSession: 10 });
    expect(after.indexing.done).toBe(true);
    expect(after.hits).toHaveLength(1);
  });

  it('an imported store is smaller than the session files it was imported from, once packed', async () => {
    // Sessions like a heavy Claude Code user's: prompts, replies, shell calls with their output, edits.
    home = tempDir('sb-import-home-');
    const dir = join(home, '.claude/projects/-home-dev-app');
    mkdirSync(dir, { recursive: true });
    const vocabulary = Array.from({ length: 3000 }, (_, k) => `w${(k * 7919).toString(36)}`);
    let seed = 7;
    const words = (n: number) =>
      Array.from({ length: n }, () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return vocabulary[Math.floor(vocabulary.length ** (seed / 0x80000000)) - 1]!; // the k-th word about 1/k as often
      }).join(' ');
    let jsonlBytes = 0;
    for (let i = 0; i < 40; i++) {
      const base = { sessionId: `0000${i}-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`, cwd: '/home/dev/app', version: '2.1.34', isSidechain: false };
      const lines: string[] = [];
      for (let n = 0; n < 60; n++) {
        const at = (k: number) => ({ ...base, timestamp: new Date(Date.UTC(2025, 11, 1, i, n, k)).toISOString(), uuid: `${i}-${n}-${k}` });
        lines.push(
          JSON.stringify({ ...at(0), type: 'user', message: { role: 'user', content: [{ type: 'text', text: `Please look at the ${words(6)}` }] } }),
          JSON.stringify({ ...at(1), type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: `I will check the ${words(12)}.` }] } }),
          JSON.stringify({ ...at(2), type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}_${n}`, name: 'Bash', input: { command: `grep -rn ${words(1)} src` } }] } }),
          JSON.stringify({ ...at(3), type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}_${n}`, content: Array.from({ length: 20 }, (_, k) => `src/${words(1)}.ts:${k}: ${words(8)}`).join('\n') }] } }),
        );
      }
      const text = `${lines.join('\n')}\n`;
      writeFileSync(join(dir, `session-${i}.jsonl`), text);
      jsonlBytes += Buffer.byteLength(text);
    }
    importer = make(home, {}, [], { bulk: () => t.history.bulkWrite(), bulkMinBytes: 4096 });
    expect((await run(['claude-code'])).sessions).toBe(40);
    await t.history.whenIndexed();
    // What the app does once the sessions are quiet: their log rows packed, the pages freed handed back.
    const packer = new StorePacker(t.db, 0);
    while (packer.step(Number.MAX_SAFE_INTEGER, 60_000, Date.now() + 1).sessions > 0);
    packer.vacuum(Number.MAX_SAFE_INTEGER);
    t.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(search(words(1)).length).toBeGreaterThan(0);
    const storeBytes = statSync(t.path).size + (existsSync(`${t.path}-wal`) ? statSync(`${t.path}-wal`).size : 0);
    // Written plain and compressed in place later, the entries left their pages half empty (2.2 × the files here).
    expect(storeBytes / jsonlBytes).toBeLessThan(2);
    const entries = t.db.prepare("SELECT sum(pgsize) AS size, sum(unused) AS unused FROM dbstat WHERE name = 'history_entries'").get() as { size: number; unused: number };
    expect(entries.unused / entries.size).toBeLessThan(0.25);
  });

  it('kept up: a store the agent makes after the start is found and watched, and its sessions imported', async () => {
    home = tempDir('sb-import-home-');
    importer = make(home, {}, ['claude-code']);
    importer.keepUp();
    // The CLI’s first run makes its folders one by one, then writes its session (found within a poll).
    mkdirSync(join(home, '.claude'));
    await new Promise((r) => setTimeout(r, 100));
    mkdirSync(join(home, '.claude/projects/-work-first'), { recursive: true });
    const record = (content: string) => `${JSON.stringify({ type: 'user', sessionId: '5e6f7a8b-1f2d-4e6a-9b7c-8d9e0f1a2b3c', cwd: '/work/first', timestamp: new Date().toISOString(), message: { role: 'user', content } })}\n`;
    writeFileSync(join(home, '.claude/projects/-work-first/5e6f7a8b-1f2d-4e6a-9b7c-8d9e0f1a2b3c.jsonl'), record('sketch the pelican migration'));
    await expect.poll(() => search('pelican').length, { timeout: 20_000, interval: 200 }).toBe(1);
    // From then on the store is watched like any other: a new line is picked up.
    appendFileSync(join(home, '.claude/projects/-work-first/5e6f7a8b-1f2d-4e6a-9b7c-8d9e0f1a2b3c.jsonl'), record('and the heron rollback'));
    await expect.poll(() => search('heron').length, { timeout: 20_000, interval: 200 }).toBe(1);
  });

  it('can be cancelled, and a later run finishes what it left', async () => {
    home = homeWith('claude-code-0.16.0', 'gemini-0.61.0', 'qwen-0.24.4');
    importer = make(home);
    importer.start(['claude-code', 'gemini-cli', 'qwen-code']);
    importer.cancel();
    await importer.settled();
    expect(importer.status()).toMatchObject({ running: false, cancelled: true });
    const after = await run(['claude-code', 'gemini-cli', 'qwen-code']);
    expect(after.cancelled).toBe(false);
    expect(listed()).toHaveLength(3);
    expect(new Set(search('marmalade').map((h) => h.sessionId)).size).toBe(3);
  });
});
