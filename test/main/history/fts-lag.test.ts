// A message still being streamed is re-indexed in FTS at most once a second (history-index.ts, FTS_LAG_MS):
// searches, turn ends and start-up after a crash must still see all of its text.
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryIndex, LAG_ALL_SQL } from '../../../src/main/core/history/history-index';
import { Acp, createStore, type TestStore } from './acp';

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
async function store(dir?: string): Promise<TestStore> {
  const s = await createStore(dir);
  stores.push(s);
  return s;
}

/** Entry ids the FTS index itself matches (no refresh of lagging entries first, unlike history.search). */
const rawMatch = (t: TestStore, word: string): number[] =>
  (t.db.prepare('SELECT rowid FROM history_fts WHERE history_fts MATCH ?').all(`"${word}"`) as Array<{ rowid: number }>).map((r) => r.rowid);
const agentEntry = (t: TestStore): number =>
  (t.db.prepare("SELECT id FROM history_entries WHERE kind = 'agent' ORDER BY id DESC LIMIT 1").get() as { id: number }).id;
const lagRows = (t: TestStore): number => (t.db.prepare('SELECT count(*) AS n FROM history_fts_lag').get() as { n: number }).n;
const search = (t: TestStore, query: string) => t.history.search({ query, limit: 50, perSession: 10 }).hits;

describe('FTS of a message being streamed', () => {
  it('defers re-indexing the growing entry, yet a search finds the chunk written just before it', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('explain');
    t.append('s1', [p]);
    // Separate write batches, as chunks arrive from an agent at a steady rate.
    for (let i = 0; i < 50; i++) t.append('s1', [acp.agent(`word${i} `, 'm1')]);
    t.append('s1', [acp.agent('zebracrossing ', 'm1')]);
    const id = agentEntry(t);
    // The entry's text is stored at once; its FTS row lags (it is listed as lagging).
    const text = (t.db.prepare('SELECT text FROM history_entries WHERE id = ?').get(id) as { text: string }).text;
    expect(text.endsWith('zebracrossing ')).toBe(true);
    expect(rawMatch(t, 'zebracrossing')).toEqual([]);
    expect(lagRows(t)).toBe(1);
    // A search brings it up to date first.
    const hits = search(t, 'zebracross');
    expect(hits.map((h) => h.kind)).toEqual(['agent']);
    expect(rawMatch(t, 'zebracrossing')).toEqual([id]);
    expect(rawMatch(t, 'word0')).toEqual([id]);
    expect(lagRows(t)).toBe(0);
    t.db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
  });

  it('indexes the open message in the same transaction as the end of its turn, and when the next entry closes it', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('first');
    t.append('s1', [p]);
    t.append('s1', [acp.agent('alpha ', 'm1')]);
    t.append('s1', [acp.agent('bravo ', 'm1')]);
    expect(rawMatch(t, 'bravo')).toEqual([]);
    t.append('s1', [acp.stop(p.id)]);
    const first = agentEntry(t);
    expect(rawMatch(t, 'bravo')).toEqual([first]);
    expect(lagRows(t)).toBe(0);

    const q = acp.prompt('second');
    t.append('s1', [q]);
    t.append('s1', [acp.agent('charlie ', 'm2')]);
    t.append('s1', [acp.agent('delta ', 'm2')]);
    const second = agentEntry(t);
    expect(rawMatch(t, 'delta')).toEqual([]);
    // A tool call closes the message: indexed in that batch.
    t.append('s1', [acp.tool({ toolCallId: 't1', title: 'Read file', kind: 'read', status: 'pending' })]);
    expect(rawMatch(t, 'delta')).toEqual([second]);
    expect(rawMatch(t, 'charlie')).toEqual([second]);
  });

  it('re-indexes a lagging entry on its own (a timer, once a second) while it keeps growing', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    t.append('s1', [acp.prompt('go')]);
    t.append('s1', [acp.agent('early ', 'm1')]);
    // The timer (1 s; polled: a busy machine runs timers late) indexes what was there…
    const id = agentEntry(t);
    expect(rawMatch(t, 'early')).toEqual([]);
    await expect.poll(() => rawMatch(t, 'early'), { timeout: 5_000, interval: 50 }).toEqual([id]);
    // …and the next chunk after that starts a new lag period.
    t.append('s1', [acp.agent('later ', 'm1')]);
    expect(rawMatch(t, 'later')).toEqual([]);
    await expect.poll(() => rawMatch(t, 'later'), { timeout: 5_000, interval: 50 }).toEqual([id]);
    expect(lagRows(t)).toBe(0);
  });

  it('after a crash, start-up indexes what a lagging entry held', async () => {
    const t = await store();
    t.addSession('s1');
    const acp = new Acp();
    t.append('s1', [acp.prompt('go')]);
    t.append('s1', [acp.agent('lost ', 'm1')]);
    t.append('s1', [acp.agent('tailword ', 'm1')]);
    const id = agentEntry(t);
    expect(rawMatch(t, 'tailword')).toEqual([]);
    expect(lagRows(t)).toBe(1);
    // A new process opening the same file: no dispose of the old index ran (as after SIGKILL).
    const fresh = new HistoryIndex(t.db);
    expect(fresh.catchUp()).toBe(true);
    expect(rawMatch(t, 'tailword')).toEqual([id]);
    expect(rawMatch(t, 'lost')).toEqual([id]);
    expect(lagRows(t)).toBe(0);
  });
});

describe('the lag read at start', () => {
  it('is read from the lag table outwards, not by scanning every entry of the store', async () => {
    const t = await store();
    // Without statistics (no ANALYZE is ever run), the planner would take history_entries as the outer loop: a scan
    // of every entry, 0.3 s at each start over ten million events, even with nothing lagging.
    const plan = (t.db.prepare(`EXPLAIN QUERY PLAN ${LAG_ALL_SQL}`).all() as Array<{ detail: string }>).map((r) => r.detail);
    expect(plan[0]).toMatch(/^SCAN l\b/);
    expect(plan.some((d) => /^SCAN e\b/.test(d))).toBe(false);
  });
});
