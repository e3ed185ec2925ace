/**
 * History → Import of OpenCode 1.18's database (opencode.db, WAL mode) while OpenCode writes it: a writer
 * connection of its own writes a turn as OpenCode does (the message's row, then its parts, updated as they
 * stream, then `time.completed`), and "Keep importing" imports all of it once, whatever it read part way.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportSourceId } from '../../../src/shared/contract/history-import';
import { HistoryImportService, type HistoryImportDeps } from '../../../src/main/core/history-import/import-service';
import { SessionRows } from '../../../src/main/core/acp/session/session-rows';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { repoRoot, tempDir } from '../../support/app-server';
import { createStore, type TestStore } from '../history/acp';

const SQL = readFileSync(join(__dirname, '../../fixtures/agent-histories/opencode-1.18/opencode.sql'), 'utf8');
const SESSION = 'ses_3f9a1c2b7ffeAbCdEf';

/** OpenCode's side: its own connection to its database, writing rows as its projectors do (session.sql.ts, message-v2.ts). */
class OpencodeWriter {
  readonly db: Database.Database;
  /** OpenCode's times are the wall clock's (a message not completed for a day is taken as abandoned). */
  private clock = Date.now();
  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // OpenCode's connection stays open: what it writes lies in opencode.db-wal.
    this.db.pragma('wal_autocheckpoint = 0');
  }
  now(): number {
    return (this.clock += 1000);
  }
  touch(session = SESSION): void {
    this.db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(this.now(), session);
  }
  message(id: string, info: Record<string, unknown>, session = SESSION): void {
    const created = (info.time as { created: number }).created;
    this.db
      .prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data, time_updated = excluded.time_updated')
      .run(id, session, created, this.now(), JSON.stringify(info));
  }
  part(id: string, messageId: string, data: Record<string, unknown>, session = SESSION): void {
    const t = this.now();
    this.db
      .prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data, time_updated = excluded.time_updated')
      .run(id, messageId, session, t, t, JSON.stringify(data));
  }
}

describe('History → Import of OpenCode', () => {
  let t: TestStore;
  let home: string;
  let importer: HistoryImportService;
  let writer: OpencodeWriter | null = null;
  const make = (keep: ImportSourceId[] = [], more: Partial<HistoryImportDeps> = {}) =>
    new HistoryImportService({
      watch: (root, onEvent) => new LocalHost().watch(root, onEvent),
      db: () => t.db,
      log: () => t.log,
      home,
      env: {},
      keep: () => keep,
      agentFor: () => null,
      deleteSessions: (ids) => t.history.delete(ids),
      ...more,
    });
  const run = async (sources: ImportSourceId[] = ['opencode']) => {
    importer.start(sources);
    await importer.settled();
    return importer.status();
  };
  const search = (query: string) => t.history.search({ query, limit: 50, perSession: 10 }).hits;
  const listed = () => t.history.list({ limit: 100, offset: 0 }).sessions;
  const messages = () => (t.db.prepare('SELECT count(*) AS n FROM acp_messages').get() as { n: number }).n;
  const dbPath = () => join(home, '.local/share/opencode/opencode.db');
  /** OpenCode's database as the fixture has it, with OpenCode's connection open on it. */
  const opencode = (dir = join(home, '.local/share/opencode')): OpencodeWriter => {
    mkdirSync(dir, { recursive: true });
    const w = new OpencodeWriter(join(dir, 'opencode.db'));
    w.db.exec(SQL);
    return (writer = w);
  };

  beforeEach(async () => {
    t = await createStore();
    home = tempDir('sb-opencode-home-');
  });
  afterEach(() => {
    importer?.dispose();
    writer?.db.close();
    writer = null;
    t.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('kept up: a turn OpenCode is still writing is imported whole once it completes, each part once', async () => {
    const w = opencode();
    importer = make(['opencode']);
    importer.keepUp();
    await expect.poll(() => listed().length, { timeout: 20_000 }).toBe(1);
    const before = messages();

    // The prompt: the session touched, the user message's row, then its part.
    w.touch();
    const asked = w.now();
    w.message('msg_d0000000001', { role: 'user', time: { created: asked }, agent: 'build' });
    w.part('prt_d0000000001a', 'msg_d0000000001', { type: 'text', text: 'Plan the nightjar survey' });
    // The reply's row, not completed; its first step and a text part that is still streaming.
    const replied = w.now();
    const reply = { role: 'assistant', time: { created: replied }, parentID: 'msg_d0000000001', modelID: 'claude-sonnet-4-5', providerID: 'anthropic', mode: 'build' };
    w.message('msg_d0000000002', reply);
    w.part('prt_d0000000002a', 'msg_d0000000002', { type: 'step-start' });
    w.part('prt_d0000000002b', 'msg_d0000000002', { type: 'text', text: 'Looking at the nig', time: { start: w.now() } });
    // Read while the reply is being written: the prompt is there (a message follows it), the reply is not yet.
    await expect.poll(() => search('nightjar').map((h) => h.kind), { timeout: 20_000, interval: 100 }).toEqual(['prompt']);

    w.part('prt_d0000000002b', 'msg_d0000000002', { type: 'text', text: 'Looking at the nightjar transects first.', time: { start: replied, end: w.now() } });
    w.part('prt_d0000000002c', 'msg_d0000000002', { type: 'tool', callID: 'toolu_02Bash', tool: 'bash', state: { status: 'pending', input: {}, raw: '' } });
    w.part('prt_d0000000002c', 'msg_d0000000002', { type: 'tool', callID: 'toolu_02Bash', tool: 'bash', state: { status: 'running', input: { command: 'ls transects-whinchat' }, time: { start: w.now() } } });
    // The tool runs: its call is there, and the text before it.
    await expect.poll(() => search('whinchat').length, { timeout: 20_000, interval: 100 }).toBeGreaterThan(0);
    expect(search('transects').map((h) => h.kind)).toContain('agent');

    const input = { command: 'ls transects-whinchat' };
    w.part('prt_d0000000002c', 'msg_d0000000002', { type: 'tool', callID: 'toolu_02Bash', tool: 'bash', state: { status: 'completed', input, output: 'north-ridge-stonechat\n', title: 'ls', metadata: {}, time: { start: replied, end: w.now() } } });
    w.part('prt_d0000000002d', 'msg_d0000000002', { type: 'text', text: 'The survey starts on the north ridge at dusk (kestrel permit needed).', time: { start: w.now() } });
    w.part('prt_d0000000002d', 'msg_d0000000002', { type: 'text', text: 'The survey starts on the north ridge at dusk (kestrel permit needed).', time: { start: replied, end: w.now() } });
    w.part('prt_d0000000002e', 'msg_d0000000002', { type: 'step-finish', reason: 'stop' });
    w.message('msg_d0000000002', { ...reply, time: { created: replied, completed: w.now() } });
    await expect.poll(() => search('kestrel').length, { timeout: 20_000, interval: 100 }).toBe(1);
    await expect.poll(() => search('stonechat').length, { timeout: 20_000, interval: 100 }).toBe(1);

    // Each part once, in OpenCode's order; a later Import adds nothing.
    const [session] = listed();
    const entries = t.history.entries({ sessionId: session!.id, limit: 500, offset: 0 }).entries.map((e) => `${e.kind}: ${e.text}`);
    const turn = entries.slice(entries.findIndex((e) => e.includes('nightjar')));
    expect(turn).toEqual([
      'prompt: Plan the nightjar survey',
      'agent: Looking at the nightjar transects first.',
      expect.stringMatching(/^tool: Run: ls transects-whinchat\nnorth-ridge-stonechat/),
      'agent: The survey starts on the north ridge at dusk (kestrel permit needed).',
    ]);
    const after = messages();
    expect(after).toBeGreaterThan(before);
    await run();
    expect(messages()).toBe(after);
    expect(listed()).toHaveLength(1);
  });

  it('a session continued in Switchboard is not imported again: its new turns are Switchboard’s own', async () => {
    const w = opencode();
    importer = make();
    await run();
    const [session] = listed();
    expect(session).toMatchObject({ importedFrom: 'opencode' });
    // Continued here (sessions.reopen adopts it): the agent writes the new turn to its own store, Switchboard logs it live.
    new SessionRows(t.db).adopt(session!.id);
    const before = messages();
    w.touch();
    const at = w.now();
    w.message('msg_e0000000001', { role: 'user', time: { created: at } });
    w.part('prt_e0000000001a', 'msg_e0000000001', { type: 'text', text: 'now the lapwing census' });
    w.message('msg_e0000000002', { role: 'assistant', time: { created: w.now(), completed: w.now() }, parentID: 'msg_e0000000001' });
    w.part('prt_e0000000002a', 'msg_e0000000002', { type: 'text', text: 'Counted the lapwings.', time: { start: at, end: w.now() } });
    await run();
    expect(messages()).toBe(before);
    expect(search('lapwing')).toEqual([]);
    expect(listed()).toHaveLength(1);
  });

  it('kept up through a linked folder (dotfiles kept elsewhere), and its size counts what lies in -wal', async () => {
    const real = join(home, 'dotfiles/opencode');
    const w = opencode(real);
    mkdirSync(join(home, '.local/share'), { recursive: true });
    symlinkSync(real, join(home, '.local/share/opencode'));
    importer = make(['opencode']);
    const [found] = (await importer.scan()).filter((s) => s.source === 'opencode');
    const sizes = ['', '-wal', '-shm'].map((s) => statSync(join(real, `opencode.db${s}`)).size);
    expect(sizes[1]).toBeGreaterThan(0);
    expect(found).toMatchObject({ found: true, sessions: 1, bytes: sizes[0]! + sizes[1]! + sizes[2]! });
    importer.keepUp();
    await expect.poll(() => listed().length, { timeout: 20_000 }).toBe(1);
    // A new session, written while watched.
    w.db
      .prepare("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_linked', '8c1f0aa1b2', 's', '/home/dev/garden', 'Linked', '1.18.2', ?, ?)")
      .run(w.now(), w.now());
    const at = w.now();
    w.message('msg_f0000000001', { role: 'user', time: { created: at } }, 'ses_linked');
    w.part('prt_f0000000001a', 'msg_f0000000001', { type: 'text', text: 'ring the avocet chicks' }, 'ses_linked');
    w.message('msg_f0000000002', { role: 'assistant', time: { created: w.now(), completed: w.now() } }, 'ses_linked');
    await expect.poll(() => search('avocet').length, { timeout: 20_000, interval: 100 }).toBe(1);
  });

  it('a database made to never answer (a recursive view for a table) is refused naming the file; the app goes on', async () => {
    mkdirSync(join(home, '.local/share/opencode'), { recursive: true });
    const db = new Database(dbPath());
    db.exec(SQL);
    db.exec("ALTER TABLE session RENAME TO session_real; CREATE VIEW session AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT 'ses_' || x AS id, NULL AS parent_id, '/tmp' AS directory, 't' AS title, '1' AS version, x AS time_created, x AS time_updated FROM r");
    db.close();
    importer = make(['opencode']);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const found = (await importer.scan()).find((s) => s.source === 'opencode');
      expect(found).toMatchObject({ found: true, sessions: 0 });
      const progress = await run();
      expect(progress.error).toBeNull();
      expect(progress.skipped).toEqual([{ path: dbPath(), reason: expect.stringMatching(/opencode\.db is not an OpenCode database that can be read safely: its session is a view/) }]);
      expect(listed()).toEqual([]);
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
    // At the next start (the switch on), it is not read again while it has not changed.
    importer.dispose();
    importer = make(['opencode']);
    importer.keepUp();
    await expect.poll(() => importer.status().skipped.map((s) => s.reason).join(), { timeout: 20_000 }).toMatch(/its session is a view.*not read again until it changes/);
  });

  it('a FIFO where the database should be is not opened (it would hold the read): said so', async () => {
    mkdirSync(join(home, '.local/share/opencode'), { recursive: true });
    execFileSync('mkfifo', [dbPath()]);
    importer = make();
    expect((await importer.scan()).find((s) => s.source === 'opencode')).toMatchObject({ found: false });
    expect((await run()).skipped).toEqual([{ path: dbPath(), reason: 'not a regular file: not read' }]);
  });

  it('a database too slow to read is given up at the time limit, without holding the event loop, and said so', async () => {
    const w = opencode();
    // Real tables, but read the slowest way: no index on part, and a session of 3,000 messages over 150,000 parts.
    w.db.exec('DROP INDEX part_message_id_id_idx');
    w.db.pragma('foreign_keys = OFF');
    w.db.transaction(() => {
      const base = w.now();
      for (let i = 0; i < 3000; i++) w.message(`msg_g${String(i).padStart(6, '0')}`, { role: 'user', time: { created: base + i } });
      const part = w.db.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, 'msg_none', ?, 0, 0, '{}')");
      for (let i = 0; i < 150_000; i++) part.run(`prt_g${i}`, SESSION);
    })();
    importer = make([], { opencodeLimitMs: 1500 });
    // (The thread's code is bundled from the sources at its first use, here in tests: done before the clock runs.)
    await importer.scan();
    let longest = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      longest = Math.max(longest, Date.now() - last);
      last = Date.now();
    }, 5);
    let progress;
    try {
      progress = await run();
    } finally {
      clearInterval(timer);
    }
    expect(progress.skipped).toEqual([{ path: dbPath(), reason: expect.stringMatching(/^reading it took more than 1\.5 s: skipped/) }]);
    expect(listed()).toEqual([]);
    // Read in 3,000 scans of 150,000 rows here, the loop would have stood still for the whole 1.5 s.
    expect(longest).toBeLessThan(750);
    // Asked again (Import), it is read again, and given up the same way.
    expect((await run()).skipped[0]!.reason).toMatch(/^reading it took more than/);
  });

  it('the built app reads the database in out/main/opencode-worker.cjs, better-sqlite3 loaded there by its path', async () => {
    opencode();
    // The file the packaged app evaluates (npm test builds the app first), run as opencode-thread.ts runs it.
    const code = readFileSync(join(repoRoot, 'out/main/opencode-worker.cjs'), 'utf8');
    const worker = new Worker(code, { eval: true, workerData: { sqlite: createRequire(import.meta.url).resolve('better-sqlite3'), path: dbPath() } });
    try {
      const answer = await new Promise<{ value: Array<{ meta: { agentSessionId: string; title: string } }> }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ id: 1, op: 'sessions', limitMs: 5000 });
      });
      expect(answer.value.map((s) => s.meta)).toMatchObject([{ agentSessionId: SESSION, title: 'Water the tomatoes on a schedule' }]);
    } finally {
      await worker.terminate();
    }
  });
});
