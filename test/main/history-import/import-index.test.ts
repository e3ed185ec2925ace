import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImportSourceId } from '../../../src/shared/contract/history-import';
import { HistoryImportService, type HistoryImportDeps } from '../../../src/main/core/history-import/import-service';
import { storedText } from '../../../src/main/core/store/compression';
import { tempDir } from '../../support/app-server';
import { createStore, type TestStore } from '../history/acp';

// Issue 39: a large import is written first and indexed in one pass after it (catch-up), in transactions sized by
// how long they take, looking up the refs of the sessions it writes in memory. What that pass builds must be what
// indexing each batch as it is written builds (the path a small import and a live session take).

const FIXTURES = join(__dirname, '../../fixtures/agent-histories');
const SOURCES: ImportSourceId[] = ['claude-code', 'codex', 'gemini-cli', 'qwen-code'];

/** The real agents' stores, and a long Claude Code session (tool calls and edits over many catch-up transactions). */
function homeWithStores(): string {
  const home = tempDir('sb-import-index-home-');
  for (const d of ['claude-agent-0.101.0', 'claude-code-0.16.0', 'codex-0.63.0', 'gemini-0.61.0', 'qwen-0.24.4']) cpSync(join(FIXTURES, d), home, { recursive: true });
  const dir = join(home, '.claude/projects/-home-dev-long');
  mkdirSync(dir, { recursive: true });
  const base = { sessionId: '7a1e0c2d-0000-4bbb-8ccc-000000000042', cwd: '/home/dev/long', version: '2.1.34', isSidechain: false };
  const lines: string[] = [];
  for (let n = 0; n < 400; n++) {
    const at = (k: number) => ({ ...base, timestamp: new Date(Date.UTC(2025, 11, 1, 0, n, k)).toISOString(), uuid: `${n}-${k}` });
    const record = (k: number, type: string, content: unknown) => JSON.stringify({ ...at(k), type, message: { role: type, content } });
    lines.push(
      record(0, 'user', [{ type: 'text', text: `Turn ${n}: look at the heron${n} module` }]),
      record(1, 'assistant', [{ type: 'text', text: `Checking heron${n} and its kestrel${n % 7} caller.` }]),
      record(2, 'assistant', [{ type: 'tool_use', id: `toolu_b${n}`, name: 'Bash', input: { command: `grep -rn heron${n} src` } }]),
      record(3, 'user', [{ type: 'tool_result', tool_use_id: `toolu_b${n}`, content: `src/heron${n}.ts:3: export const osprey${n} = 1;`, is_error: n % 50 === 7 }]),
      record(4, 'assistant', [{ type: 'tool_use', id: `toolu_e${n}`, name: 'Edit', input: { file_path: `/home/dev/long/src/heron${n % 40}.ts`, old_string: `osprey${n}`, new_string: `plover${n}` } }]),
      record(5, 'user', [{ type: 'tool_result', tool_use_id: `toolu_e${n}`, content: 'The file has been updated.' }]),
    );
  }
  writeFileSync(join(dir, `${base.sessionId}.jsonl`), `${lines.join('\n')}\n`);
  return home;
}

/** The index of a store, by what does not depend on the ids it drew (sessions by their agent's id, entries by their place). */
function indexOf(t: TestStore) {
  const db = t.db;
  const session = new Map((db.prepare('SELECT id, acp_session_id AS a FROM sessions').all() as Array<{ id: string; a: string }>).map((r) => [r.id, r.a]));
  const entries = new Map<number, string>();
  const rows: string[] = [];
  for (const r of db.prepare('SELECT * FROM history_entries ORDER BY session_id, seq, id').all() as Array<Record<string, unknown>>) {
    const key = `${session.get(r.session_id as string)}#${r.seq as number}#${r.kind as string}#${(r.ref as string | null) ?? ''}`;
    entries.set(r.id as number, key);
    const text = storedText(r.text as string | Uint8Array | null, 'entry');
    const detail = storedText(r.detail as string | Uint8Array | null, 'entry');
    rows.push(JSON.stringify([key, r.last_seq, r.ts, r.turn, r.failed, text, detail]));
  }
  rows.sort();
  const states = (db.prepare('SELECT * FROM history_sessions').all() as Array<Record<string, unknown>>)
    .map(({ session_id, open_entry_id, ...rest }) => JSON.stringify([session.get(session_id as string), open_entry_id === null ? null : entries.get(open_entry_id as number), rest]))
    .sort();
  const files = (db.prepare('SELECT session_id, path, edited, seq FROM history_files').all() as Array<Record<string, unknown>>)
    .map(({ session_id, ...rest }) => JSON.stringify([session.get(session_id as string), rest]))
    .sort();
  // Every term the full-text index holds, in which entry, column and place (a session's facet term is its id, as tokenized).
  const facet = new Map([...session].map(([id, a]) => [id.replace(/-/g, ''), `session:${a}`]));
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, 'history_fts', 'instance')");
  const terms = (db.prepare('SELECT term, doc, col, offset FROM temp.fts_terms').all() as Array<{ term: string; doc: number; col: string; offset: number }>)
    .map((r) => `${entries.get(r.doc) ?? `?${r.doc}`}|${r.col}|${r.offset}|${facet.get(r.term.replace(/[^0-9a-z]/g, '')) ?? r.term}`)
    .sort();
  return { rows, states, files, terms };
}

describe('History → Import: the index pass after a large import', () => {
  const stores: TestStore[] = [];
  const importers: HistoryImportService[] = [];
  afterEach(() => {
    for (const i of importers.splice(0)) i.dispose();
    for (const s of stores.splice(0)) {
      s.history.dispose();
      s.log.dispose();
      s.store.dispose();
    }
  });

  const importInto = async (home: string, more: Partial<HistoryImportDeps>): Promise<TestStore> => {
    const t = await createStore();
    stores.push(t);
    const importer = new HistoryImportService({ db: () => t.db, log: () => t.log, home, env: {}, keep: () => [], agentFor: () => null, deleteSessions: (ids) => t.history.delete(ids), ...more });
    importers.push(importer);
    importer.start(SOURCES);
    await importer.settled();
    return t;
  };

  it("builds from the real agents' stores the index that indexing each batch as it is written builds, and every session is found once it is done", async () => {
    const home = homeWithStores();
    const bulk = await importInto(home, { bulk: () => stores[0]!.history.bulkWrite(), bulkMinBytes: 4096 });
    // The import says it is done with every session listed; the index pass follows, and search says so until it ends.
    expect(bulk.history.list({ limit: 100, offset: 0 }).sessions).toHaveLength(6);
    expect(bulk.history.search({ query: 'heron399', limit: 10, perSession: 1 }).indexing.done).toBe(false);
    await bulk.history.whenIndexed();
    const plain = await importInto(home, {});
    await plain.history.whenIndexed();

    const a = indexOf(bulk);
    const b = indexOf(plain);
    expect(a.rows.length).toBeGreaterThan(1600);
    expect(a.terms.length).toBeGreaterThan(10_000);
    expect(a.rows).toEqual(b.rows);
    expect(a.states).toEqual(b.states);
    expect(a.files).toEqual(b.files);
    expect(a.terms).toEqual(b.terms);

    // Each real agent's session, and the long one from its first turn to its last, by a word of its own.
    const found = (t: TestStore, query: string) => new Set(t.history.search({ query, limit: 50, perSession: 1 }).hits.map((h) => h.sessionId)).size;
    expect(found(bulk, 'marmalade')).toBe(found(plain, 'marmalade'));
    expect(found(bulk, 'marmalade')).toBeGreaterThanOrEqual(3);
    expect(found(bulk, 'zephyr')).toBeGreaterThan(0);
    for (const word of ['heron0', 'osprey200', 'plover399', 'kestrel6']) expect(found(bulk, word)).toBe(1);
  });

  it('indexed again in transactions of a few messages (a tool call and its result often in two), a store has the same index', async () => {
    const t = await importInto(homeWithStores(), {});
    await t.history.whenIndexed();
    const before = indexOf(t);
    const index = t.history.index();
    index.rebuild(false);
    let transactions = 0;
    while (!index.catchUp(7, 1)) transactions++;
    expect(transactions).toBeGreaterThan(300);
    const after = indexOf(t);

    expect(after.rows).toEqual(before.rows);
    expect(after.states).toEqual(before.states);
    expect(after.files).toEqual(before.files);
    expect(after.terms).toEqual(before.terms);
  });
});
