import type Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StoreStatus } from '../../../shared/contract/app';
import { connect } from './connection';
import { latestSchemaVersion, migrations, type Migration } from './migrations';

export type Db = Database.Database;

/** Prepared statements per connection (preparing costs more than running most queries). */
const statements = new WeakMap<Db, Map<string, Database.Statement>>();
export function prepared(db: Db, sql: string): Database.Statement {
  let map = statements.get(db);
  if (!map) statements.set(db, (map = new Map()));
  let st = map.get(sql);
  if (!st) {
    if (map.size > 200) map.clear();
    map.set(sql, (st = db.prepare(sql)));
  }
  return st;
}

export class StoreOpenError extends Error {
  constructor(
    readonly kind: Extract<StoreStatus, { ok: false }>['kind'],
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'StoreOpenError';
  }
}

function classify(e: unknown, path: string): StoreOpenError {
  if (e instanceof StoreOpenError) return e;
  const code = (e as { code?: string }).code ?? '';
  const message = e instanceof Error ? e.message : String(e);
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) return new StoreOpenError('corrupt', path, message);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return new StoreOpenError('locked', path, message);
  return new StoreOpenError('unreadable', path, message);
}

export interface OpenOptions {
  /** Only for tests of migrations from earlier schema versions. */
  migrations?: readonly Migration[];
}

/** Opens (creating if needed) the store file with `connect`'s settings and applies pending migrations. */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const list = options.migrations ?? migrations;
  mkdirSync(dirname(path), { recursive: true });
  let db: Db | undefined;
  try {
    db = connect(path);
    const current = db.pragma('user_version', { simple: true }) as number;
    const latest = list.at(-1)?.version ?? 0;
    if (current > latest) {
      throw new StoreOpenError(
        'newer_schema',
        path,
        `the store was written by a newer Switchboard (schema ${current}, this one knows ${latest})`,
      );
    }
    // A new file: freed pages (packing, purges) go back to the file system in steps (store-packer.ts).
    if (current === 0 && (db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number }).n === 0) {
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
    }
    for (const m of list.filter((m) => m.version > current)) {
      db.transaction(() => {
        db!.exec(m.sql);
        db!.pragma(`user_version = ${m.version}`);
      })();
    }
    return db;
  } catch (e) {
    db?.close();
    throw classify(e, path);
  }
}

/** Moves a broken store file (and its WAL/SHM) aside, keeping it, so a fresh one can be created. */
export function moveAside(path: string, now = Date.now()): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const target = `${path}.broken-${stamp}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  return target;
}

export { latestSchemaVersion };
