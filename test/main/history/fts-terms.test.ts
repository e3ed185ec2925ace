// The terms a prefix starts, read from the FTS5 index's own segments (fts-terms.ts), are exactly those FTS5 itself
// lists (its fts5vocab table), whatever shape the index is in: many segments, a merge stopped half-way, deleted
// rows, terms whose lists span many pages.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { termsWithPrefix } from '../../../src/main/core/history/fts-terms';

const dbs: Database.Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

/** An index configured as history_fts (migrations/0013), with small pages so that terms and lists cross pages. */
function index(): Database.Database {
  const db = new Database(':memory:');
  dbs.push(db);
  db.exec(`CREATE VIRTUAL TABLE t USING fts5 (body, paths, facets, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 4');
           INSERT INTO t (t, rank) VALUES ('pgsz', 128);`);
  return db;
}

let seed = 7;
const rand = (n: number): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const SYLLABLES = ['de', 'dep', 'ploy', 'lo', 'ka', 'ca', 'che', 'ro', 'ut', 'er', 'mi', 'gra', 'tion', 'z', 'q'];
const VOCABULARY = Array.from({ length: 600 }, (_, i) => SYLLABLES[i % 15]! + SYLLABLES[Math.floor(i / 15) % 15]! + (i >= 225 ? SYLLABLES[Math.floor(i / 225)]! : ''));
// A few words in nearly every row (long lists over many pages), the rest rarer and rarer.
const text = (n: number): string => Array.from({ length: n }, () => VOCABULARY[Math.min(rand(600), rand(600), rand(600))]).join(' ');

function fill(db: Database.Database, rows: number, perTransaction: number, start = 1): void {
  const insert = db.prepare('INSERT INTO t (rowid, body, paths, facets) VALUES (?, ?, ?, ?)');
  for (let id = start; id < start + rows; id += perTransaction) {
    db.transaction(() => {
      for (let k = id; k < Math.min(start + rows, id + perTransaction); k++) insert.run(k, text(12), text(2), `agent${k % 3}`);
    })();
  }
}

/** What FTS5 lists itself. */
function vocabulary(db: Database.Database, prefix: string): string[] {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, 't', 'row')");
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  return db.prepare('SELECT term FROM temp.v WHERE term >= ? AND term < ? ORDER BY term').pluck().all(prefix, end) as string[];
}

const PREFIXES = ['d', 'de', 'dep', 'depl', 'deploy', 'deployde', 'c', 'ca', 'cac', 'che', 'q', 'qz', 'z', 'zz', 'gra', 'tion', 'agent', 'agent1', 'x', 'ro', 'rout'];

function expectSameAsFts5(db: Database.Database): void {
  for (const prefix of PREFIXES) expect(termsWithPrefix(db, 't', prefix, 10_000), prefix).toEqual(vocabulary(db, prefix));
}

describe('terms of the FTS index that start with a prefix', () => {
  it('are those FTS5 lists, over many segments written one transaction at a time', () => {
    const db = index();
    db.exec("INSERT INTO t (t, rank) VALUES ('automerge', 0)");
    fill(db, 3000, 100);
    expect(segments(db)).toBeGreaterThan(10);
    expectSameAsFts5(db);
  });

  it('are those FTS5 lists after merges, one stopped half-way, and deleted rows', () => {
    const db = index();
    db.exec("INSERT INTO t (t, rank) VALUES ('automerge', 0)");
    fill(db, 4000, 200);
    // An incremental merge of a few pages: its input segments are trimmed, their new first page rewritten.
    db.exec("INSERT INTO t (t, rank) VALUES ('usermerge', 2); INSERT INTO t (t, rank) VALUES ('merge', 30)");
    for (let id = 1; id < 4000; id += 7) db.prepare('DELETE FROM t WHERE rowid = ?').run(id);
    expectSameAsFts5(db);
    db.exec("INSERT INTO t (t) VALUES ('optimize')");
    expect(segments(db)).toBe(1);
    expectSameAsFts5(db);
    fill(db, 500, 50, 5000);
    expectSameAsFts5(db);
  });

  it('are read again once the index changed: a word written after a first look is found', () => {
    const db = index();
    fill(db, 300, 100);
    expect(termsWithPrefix(db, 't', 'zebra', 10)).toEqual([]);
    db.prepare('INSERT INTO t (rowid, body, paths, facets) VALUES (?, ?, ?, ?)').run(10_000, 'a zebracrossing here', '', '');
    expect(termsWithPrefix(db, 't', 'zebra', 10)).toEqual(['zebracrossing']);
    db.transaction(() => db.prepare('INSERT INTO t (rowid, body, paths, facets) VALUES (?, ?, ?, ?)').run(10_001, 'zebrafish', '', ''))();
    expect(termsWithPrefix(db, 't', 'zebra', 10)).toEqual(['zebracrossing', 'zebrafish']);
  });

  it('answers null past the most terms asked for, and nothing for an empty index', () => {
    const db = index();
    expect(termsWithPrefix(db, 't', 'de', 10)).toEqual([]);
    fill(db, 1000, 1000);
    const all = vocabulary(db, 'd');
    expect(all.length).toBeGreaterThan(10);
    expect(termsWithPrefix(db, 't', 'd', 10)).toBeNull();
    expect(termsWithPrefix(db, 't', 'd', all.length)).toEqual(all);
    // An index in a version whose layout this reader does not know is not read.
    db.unsafeMode(true); // (FTS5's tables are written by FTS5 alone otherwise)
    db.prepare("UPDATE t_config SET v = 6 WHERE k = 'version'").run();
    db.unsafeMode(false);
    db.prepare('INSERT INTO t (rowid, body, paths, facets) VALUES (?, ?, ?, ?)').run(5000, 'dx', '', '');
    expect(termsWithPrefix(db, 't', 'd', all.length + 1)).toBeNull();
  });
});

/** Segments of the index (each has rows in its b-tree table). */
function segments(db: Database.Database): number {
  return (db.prepare('SELECT count(DISTINCT segid) AS n FROM t_idx').get() as { n: number }).n;
}
