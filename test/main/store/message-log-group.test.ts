// MessageLog's shared transaction: every source's lines (all agents') and queued appends in one commit, with
// commits at least groupMs apart under load and no wait after a quiet spell.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/main/core/store/database';
import { encodeBlock, MAX_PACKED, MessageLog, readMessages, type LogEntry, type LogSource, type PersistedMessage } from '../../../src/main/core/store/message-log';
import { tempDir } from '../../support/app-server';
import { FakeClock } from '../../support/fake-clock';

const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function setup(groupMs: number, clock?: FakeClock) {
  const db = openDatabase(join(tempDir(), 'switchboard.db'));
  open.push(db);
  for (const id of ['a', 'b']) db.prepare('INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES (?, ?, ?, 1, 1)').run(id, 'x', '/w');
  const log = new MessageLog(db, { groupMs, ...(clock ? { clock } : {}) });
  const batches: number[][] = [];
  log.addIndexer((_db, messages) => batches.push(messages().map((m) => m.seq)));
  return { db, log, batches };
}

class Source implements LogSource {
  queued: LogEntry[] = [];
  results: Array<{ stored: PersistedMessage[] | null; committedRows: number }> = [];
  constructor(
    private readonly db: Db,
    readonly sessionId: string,
  ) {}
  push(n: number): void {
    for (let i = 0; i < n; i++) this.queued.push({ sessionId: this.sessionId, direction: 'a2c', method: 'session/update', body: `{"n":${i}}` });
  }
  collect(): LogEntry[] {
    return this.queued.splice(0);
  }
  committed(stored: PersistedMessage[] | null): void {
    // Told after the commit: the rows are there for any other reader.
    const committedRows = (this.db.prepare('SELECT sum(n) AS n FROM acp_messages WHERE session_id = ?').get(this.sessionId) as { n: number }).n;
    this.results.push({ stored, committedRows });
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('message log: one transaction for every agent', () => {
  it("writes two agents' lines and a pending append in one transaction, each source told its own rows", async () => {
    const { db, log, batches } = setup(0);
    const a = new Source(db, 'a');
    const b = new Source(db, 'b');
    a.push(3);
    log.schedule(a);
    b.push(2);
    log.schedule(b);
    const appended = log.append({ sessionId: 'a', direction: 'c2a', method: 'session/prompt', body: '{}' });
    await tick();
    expect(batches).toHaveLength(1);
    expect(batches[0]).toHaveLength(6);
    expect((await appended).seq).toBe(1); // appends go first
    expect(a.results).toHaveLength(1);
    expect(a.results[0]!.stored!.map((m) => [m.sessionId, m.seq])).toEqual([['a', 2], ['a', 3], ['a', 4]]);
    expect(b.results[0]!.stored!.map((m) => [m.sessionId, m.seq])).toEqual([['b', 1], ['b', 2]]);
    expect(a.results[0]!.committedRows).toBe(4);
  });

  it('under load, commits at most once per groupMs; the first write after a quiet spell is not delayed', async () => {
    // The window's time is a fake clock: a busy machine's slow ticks must not end it mid-burst.
    const clock = new FakeClock();
    const { db, log, batches } = setup(40, clock);
    const a = new Source(db, 'a');
    a.push(1);
    log.schedule(a);
    await tick();
    expect(batches).toHaveLength(1); // quiet before: committed on the next tick
    // A burst right after: held until 40 ms after the last commit, then written together.
    for (let i = 0; i < 5; i++) {
      a.push(1);
      log.schedule(a);
      await tick();
      await clock.advance(5);
    }
    expect(batches).toHaveLength(1);
    await clock.advance(14);
    expect(batches).toHaveLength(1);
    await clock.advance(1);
    expect(batches).toHaveLength(2);
    expect(batches[1]).toHaveLength(5);
    // flush() writes at once whatever is scheduled (an agent's stdout ended).
    a.push(2);
    log.schedule(a);
    log.flush();
    expect(batches).toHaveLength(3);
    expect(a.results.at(-1)!.stored).toHaveLength(2);
  });

  it('a source that holds all it reads ahead is written on the next tick, inside the group window too', async () => {
    const { db, log, batches } = setup(10_000);
    const a = new Source(db, 'a');
    a.push(1);
    log.schedule(a);
    await tick();
    expect(batches).toHaveLength(1);
    a.push(3);
    log.schedule(a); // held for the window…
    await tick();
    expect(batches).toHaveLength(1);
    a.push(2);
    log.schedule(a, true); // …until the source is full: its reading waits for this commit
    await tick();
    expect(batches).toHaveLength(2);
    expect(batches[1]).toHaveLength(5);
  });

  it("a source that throws while collecting does not cost the others their lines", () => {
    const { db, log } = setup(0);
    const a = new Source(db, 'a');
    const broken = new Source(db, 'b');
    broken.collect = () => {
      throw new Error('bug in a source');
    };
    a.push(2);
    log.schedule(broken);
    log.schedule(a);
    const errors: unknown[] = [];
    const orig = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      log.flush();
    } finally {
      console.error = orig;
    }
    expect(errors).toHaveLength(1);
    expect(a.results[0]!.stored!.map((m) => m.seq)).toEqual([1, 2]);
    expect(broken.results).toEqual([{ stored: [], committedRows: null }]);
  });

  it('a failed transaction tells every source (no rows), and nothing of the batch is kept', async () => {
    const { db, log } = setup(0);
    const a = new Source(db, 'a');
    const ghost = new Source(db, 'no-such-session'); // foreign key violation fails the whole transaction
    a.push(2);
    ghost.push(1);
    log.schedule(a);
    log.schedule(ghost);
    log.flush();
    expect(a.results[0]!.stored).toBeNull();
    expect(ghost.results[0]!.stored).toBeNull();
    expect((db.prepare('SELECT count(*) AS n FROM acp_messages').get() as { n: number }).n).toBe(0);
    // The log goes on: the next batch gets the sequence numbers the failed one did not use.
    a.push(1);
    log.schedule(a);
    log.flush();
    expect(a.results[1]!.stored!.map((m) => m.seq)).toEqual([1]);
  });
});

describe('message log: runs of updates in one row', () => {
  it("packs a run of one session's session/update lines into a row and reads every message back, in order", () => {
    const { db, log, batches } = setup(0);
    const update = (i: number) => ({ sessionId: 'a', direction: 'a2c' as const, method: 'session/update', body: `{"u":${i}}` });
    const entries = [
      { sessionId: 'a', direction: 'c2a' as const, method: 'session/prompt', body: '{"p":1}' },
      update(1),
      update(2),
      update(3),
      { sessionId: 'b', direction: 'a2c' as const, method: 'session/update', body: '{"b":1}' },
      update(4),
      { sessionId: 'a', direction: 'a2c' as const, method: null, body: '{"r":1}' },
      ...Array.from({ length: 1200 }, (_, i) => update(100 + i)),
    ];
    const stored = log.appendMany(entries);
    expect(stored.map((m) => m.seq).filter((_, i) => entries[i]!.sessionId === 'a')).toEqual(Array.from({ length: 1206 }, (_, i) => i + 1));
    // Rows: the prompt; updates 1–3; b's; update 4; the response; 1,200 updates in rows of at most 512.
    const rows = db.prepare("SELECT seq, n FROM acp_messages WHERE session_id = 'a' ORDER BY seq").all() as Array<{ seq: number; n: number }>;
    expect(rows).toEqual([
      { seq: 1, n: 1 },
      { seq: 2, n: 3 },
      { seq: 5, n: 1 },
      { seq: 6, n: 1 },
      { seq: 7, n: 512 },
      { seq: 519, n: 512 },
      { seq: 1031, n: 176 },
    ]);
    const back = readMessages(db, 'a');
    expect(back.map((m) => m.body)).toEqual(entries.filter((e) => e.sessionId === 'a').map((e) => e.body));
    expect(back.map((m) => m.seq)).toEqual(Array.from({ length: 1206 }, (_, i) => i + 1));
    // Reading after a seq inside a packed row starts at the next message.
    expect(readMessages(db, 'a', 3).map((m) => m.body).slice(0, 2)).toEqual(['{"u":3}', '{"u":4}']);
    // The indexer saw every message once, with its own seq.
    expect(batches.flat()).toHaveLength(entries.length);
    // A new log on the same file continues the sequence after the last packed message.
    const next = new MessageLog(db).appendMany([update(9999)]);
    expect(next[0]!.seq).toBe(1207);
  });
});

describe('a batch that fails', () => {
  it('leaves nothing behind: the sessions it wrote continue from where they were, with no gap in their sequence', () => {
    const { db, log } = setup(0);
    const entry = (sessionId: string, n: number): LogEntry => ({ sessionId, direction: 'a2c', method: 'session/update', body: `{"n":${n}}` });
    log.appendMany([entry('a', 1), entry('b', 1)]);
    let fail = true;
    log.addIndexer(() => {
      if (fail) throw new Error('the indexer failed');
    });
    expect(() => log.appendMany([entry('a', 2), entry('a', 3)])).toThrow('the indexer failed');
    fail = false;
    log.appendMany([entry('a', 2), entry('b', 2)]);
    expect(readMessages(db, 'a').map((m) => [m.seq, m.body])).toEqual([
      [1, '{"n":1}'],
      [2, '{"n":2}'],
    ]);
    expect(readMessages(db, 'b').map((m) => m.seq)).toEqual([1, 2]);
  });
});

describe('compressed blocks (a large import)', () => {
  const block = (from: number, n: number, ts = 1000) => {
    const messages = Array.from({ length: n }, (_, i) => ({ ts: ts + i, direction: 'a2c' as const, method: i === n - 1 ? null : 'session/update', body: `{"m":${from + i}}` }));
    return { n, ts, direction: 'a2c' as const, method: 'session/update', body: encodeBlock(messages, ts, 1) };
  };

  it('are read back as their messages, with their own times, and the sequence goes on after them', () => {
    const { db, log, batches } = setup(0);
    log.appendMany([{ sessionId: 'a', direction: 'c2a', method: 'session/prompt', body: '{"m":0}' }]);
    log.appendBlocks('a', [block(1, 3), block(4, 2, 2000)]);
    log.appendMany([{ sessionId: 'a', direction: 'a2c', method: 'session/update', body: '{"m":6}' }]);
    const back = readMessages(db, 'a');
    expect(back.map((m) => [m.seq, m.body])).toEqual(Array.from({ length: 7 }, (_, i) => [i + 1, `{"m":${i}}`]));
    expect(back.slice(1, 6).map((m) => [m.ts, m.method])).toEqual([
      [1000, 'session/update'],
      [1001, 'session/update'],
      [1002, null],
      [2000, 'session/update'],
      [2001, null],
    ]);
    // The indexer saw the blocks' messages once, decoded.
    expect(batches).toEqual([[1], [2, 3, 4, 5, 6], [7]]);
    expect(db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(body) = 'blob'").get()).toEqual({ n: 2 });
  });

  it('are decoded only for an indexer that asks for them', () => {
    const { db } = setup(0);
    const log = new MessageLog(db);
    let calls = 0;
    log.addIndexer(() => void calls++);
    // A damaged block is stored as it is given: nothing reads it while no indexer asks.
    log.appendBlocks('a', [{ ...block(1, 2), body: Buffer.from([1, 2, 3]) }]);
    expect(calls).toBe(1);
    expect(() => readMessages(db, 'a')).toThrow(/damaged/);
  });

  it('a block of more messages than a row may hold is refused, and the sequence is as it was', () => {
    const { db, log } = setup(0);
    log.appendBlocks('b', [block(1, 2)]);
    expect(() => log.appendBlocks('b', [block(3, 1), { ...block(4, 1), n: MAX_PACKED + 1 }])).toThrow(/cannot be stored/);
    log.appendBlocks('b', [block(3, 1)]);
    expect(readMessages(db, 'b').map((m) => [m.seq, m.body])).toEqual([
      [1, '{"m":1}'],
      [2, '{"m":2}'],
      [3, '{"m":3}'],
    ]);
  });
});
