import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, StoreOpenError } from '../../../src/main/core/store/database';
import { latestSchemaVersion, migrations } from '../../../src/main/core/store/migrations';
import { StoreService } from '../../../src/main/core/store/store-service';
import { tempDir } from '../../support/app-server';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

describe('store', () => {
  it('creates the file with WAL, foreign keys and every migration applied', () => {
    const path = join(tempDir(), 'switchboard.db');
    const db = openDatabase(path);
    open.push(db);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(['agents', 'sessions', 'acp_messages', 'permission_rules', 'settings']));
  });

  it('applies only the missing migrations to a store from an earlier version, keeping its data', () => {
    const path = join(tempDir(), 'switchboard.db');
    const first = openDatabase(path, { migrations: migrations.slice(0, 1) });
    first.prepare("INSERT INTO settings (key, value_json, updated_at) VALUES ('theme', '\"dark\"', 1)").run();
    first.close();
    const db = openDatabase(path);
    open.push(db);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(db.prepare("SELECT value_json FROM settings WHERE key='theme'").get()).toEqual({ value_json: '"dark"' });
  });

  it('enforces foreign keys: a message of an unknown session is refused', () => {
    const db = openDatabase(join(tempDir(), 'switchboard.db'));
    open.push(db);
    expect(() =>
      db.prepare("INSERT INTO acp_messages (session_id, seq, ts, direction, body) VALUES ('nope', 1, 1, 'c2a', '{}')").run(),
    ).toThrow(/FOREIGN KEY/);
  });

  it('refuses a file that is not a database, as "corrupt", without touching it', () => {
    const path = join(tempDir(), 'switchboard.db');
    writeFileSync(path, 'this is not sqlite '.repeat(500));
    const before = readFileSync(path);
    const e = (() => {
      try {
        openDatabase(path);
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(StoreOpenError);
    expect((e as StoreOpenError).kind).toBe('corrupt');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a store written by a newer version rather than migrating it down', () => {
    const path = join(tempDir(), 'switchboard.db');
    const db = openDatabase(path);
    db.pragma(`user_version = ${latestSchemaVersion + 5}`);
    db.close();
    expect(() => openDatabase(path)).toThrow(/newer Switchboard/);
  });

  it('StoreService reports a broken store with its path and recovers by moving it aside, keeping the old file', () => {
    const dir = tempDir();
    const path = join(dir, 'switchboard.db');
    writeFileSync(path, Buffer.alloc(8192, 0x41));
    const store = new StoreService(dir);
    expect(store.status).toMatchObject({ ok: false, kind: 'corrupt', path });
    expect(() => store.db).toThrow(/could not be opened/);
    const { movedTo, store: status } = store.reset();
    expect(status).toEqual({ ok: true, path });
    expect(readFileSync(movedTo).equals(Buffer.alloc(8192, 0x41))).toBe(true);
    store.setSetting('k', { a: 1 });
    expect(store.getSetting('k')).toEqual({ a: 1 });
    expect(existsSync(path)).toBe(true);
    store.dispose();
  });
});
