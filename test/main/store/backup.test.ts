import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { Router } from '../../../src/main/core/base/router';
import { BackupService, backupName } from '../../../src/main/core/store/backup';
import { StoreService } from '../../../src/main/core/store/store-service';
import { tempDir } from '../../support/app-server';

const dirs: string[] = [];
const scratch = (prefix: string): string => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const DAY = 86_400_000;
const open: Array<{ dispose(): unknown }> = [];
afterEach(async () => {
  for (const d of open.splice(0).reverse()) await d.dispose();
});

function setup(options: { keep?: number } = {}) {
  const dir = scratch('sb-backup-');
  let now = Date.UTC(2025, 0, 1, 9);
  const store = new StoreService(dir);
  const backups = new BackupService(store, dir, { keep: options.keep ?? 3, now: () => now });
  open.push(store, backups);
  const note = (key: string) => store.setSetting(key, key);
  return {
    dir,
    store,
    backups,
    note,
    keys: () => (store.db.prepare('SELECT key FROM settings ORDER BY key').all() as { key: string }[]).map((r) => r.key),
    advance: (ms: number) => (now += ms),
  };
}

describe('store backups', () => {
  it('leaves only backups in backups/: no .partial, -wal or -shm files of a copy, nor of one cut short before', async () => {
    const { backups, note } = setup();
    note('a');
    await backups.create();
    // A backup cut short by a crash left these.
    for (const f of ['.x.sqlite.partial', '.x.sqlite.partial-wal', '.x.sqlite.partial-shm']) writeFileSync(join(backups.dir, f), 'left over');
    note('b');
    await backups.create();
    const { readdirSync } = await import('node:fs');
    const names = readdirSync(backups.dir);
    expect(names.filter((n) => n.includes('partial') || n.endsWith('-wal') || n.endsWith('-shm'))).toEqual([]);
    expect(names.length).toBe(backups.list().length);
  });

  it("makes the day's backup after start-up, not while the first window loads", async () => {
    const dir = scratch('sb-backup-core-');
    const core = new AppCore({ dataDir: dir, transport: 'browser', version: '0.0.0-test', startupBackupDelayMs: 300 });
    open.push(core);
    core.store.setSetting('precious', 1);
    // The first window's requests are answered before any backup begins…
    expect(await core.router.invoke('history.list', {})).toMatchObject({ ok: true });
    expect(existsSync(join(dir, 'backups'))).toBe(false);
    // …and the backup is made a little later, with what was written meanwhile.
    for (let i = 0; i < 300 && core.backups.list().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const [backup] = core.backups.list();
    expect(backup).toBeDefined();
    const copy = new StoreService(scratch('sb-backup-copy-'));
    open.push(copy);
    copy.replaceFile((path) => writeFileSync(path, readFileSync(join(core.backups.dir, backup!.id))));
    expect(copy.getSetting('precious')).toBe(1);
  });

  it('backs up at start-up at most once a day and keeps the last N', async () => {
    const s = setup({ keep: 3 });
    s.note('a');
    const first = await s.backups.maybeBackup();
    expect(first).not.toBeNull();
    expect(first!.id).toBe(backupName(Date.UTC(2025, 0, 1, 9)));
    s.advance(6 * 3600_000);
    expect(await s.backups.maybeBackup()).toBeNull(); // same day
    for (let i = 0; i < 4; i++) {
      s.advance(DAY);
      expect(await s.backups.maybeBackup()).not.toBeNull();
    }
    const list = s.backups.list();
    expect(list).toHaveLength(3);
    expect(list.map((b) => b.createdAt)).toEqual([...list.map((b) => b.createdAt)].sort((a, b) => b - a));
    expect(list[0]!.bytes).toBeGreaterThan(0);
    expect(list.some((b) => b.id === first!.id)).toBe(false); // the oldest went first
  });

  it('a backup is a consistent copy taken while the app keeps writing', async () => {
    const s = setup();
    const ins = s.store.db.prepare("INSERT INTO settings (key, value_json, updated_at) VALUES (?, '1', 0)");
    s.store.db.transaction(() => {
      for (let i = 0; i < 20_000; i++) ins.run(`k${String(i).padStart(5, '0')}-${'x'.repeat(100)}`);
    })();
    const pending = s.backups.create();
    // Writes during the backup (the online backup API restarts or includes them; either way the copy is sound).
    for (let i = 0; i < 50; i++) {
      s.note(`during-${i}`);
      await new Promise((r) => setImmediate(r));
    }
    const info = await pending;
    const Database = (await import('better-sqlite3')).default;
    const copy = new Database(join(s.backups.dir, info.id), { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect((copy.prepare('SELECT count(*) AS n FROM settings').get() as { n: number }).n).toBeGreaterThanOrEqual(20_000);
    } finally {
      copy.close();
    }
  });

  it('restores a backup, keeping the replaced file beside it', async () => {
    const s = setup();
    s.note('before');
    const backup = await s.backups.create();
    s.note('after');
    expect(s.keys()).toEqual(['after', 'before']);

    const r = await s.backups.restore(backup.id);
    expect(r.store).toEqual({ ok: true, path: s.store.path });
    expect(r.restartRequired).toBe(true);
    expect(r.movedTo).toMatch(/switchboard\.db\.replaced-/);
    expect(s.keys()).toEqual(['before']);
    // Nothing is lost: the replaced store still has the later write.
    const Database = (await import('better-sqlite3')).default;
    const replaced = new Database(r.movedTo!, { readonly: true });
    try {
      expect(replaced.prepare("SELECT count(*) AS n FROM settings WHERE key = 'after'").get()).toEqual({ n: 1 });
    } finally {
      replaced.close();
    }
  });

  it('is the way out of a corrupt store: list and restore through the contract while the store is broken', async () => {
    const dir = scratch('sb-backup-');
    const store = new StoreService(dir);
    const backups = new BackupService(store, dir);
    store.setSetting('precious', 42);
    const backup = await backups.create();
    store.dispose();
    writeFileSync(join(dir, 'switchboard.db'), 'garbage '.repeat(2000));
    for (const suffix of ['-wal', '-shm']) if (existsSync(join(dir, `switchboard.db${suffix}`))) writeFileSync(join(dir, `switchboard.db${suffix}`), '');

    const broken = new StoreService(dir);
    const service = new BackupService(broken, dir);
    open.push(broken, service);
    expect(broken.status).toMatchObject({ ok: false, kind: 'corrupt' });
    const router = new Router();
    service.register(router);
    const listed = await router.invoke('store.backups.list', {});
    expect(listed).toMatchObject({ ok: true, value: { dir: join(dir, 'backups'), backups: [{ id: backup.id }] } });
    expect(await service.maybeBackup()).toBeNull(); // never back up a broken store

    const restored = await router.invoke('store.backups.restore', { id: backup.id });
    expect(restored).toMatchObject({ ok: true, value: { store: { ok: true }, restartRequired: false } });
    expect(broken.getSetting('precious')).toBe(42);
    const movedTo = (restored as { value: { movedTo: string } }).value.movedTo;
    expect(readFileSync(movedTo, 'utf8')).toContain('garbage'); // the broken file is kept
  });

  it('refuses a damaged backup or a bad name and leaves the store alone', async () => {
    const s = setup();
    s.note('live');
    const backup = await s.backups.create();
    writeFileSync(join(s.backups.dir, backup.id), 'not a database '.repeat(500));
    await expect(s.backups.restore(backup.id)).rejects.toMatchObject({ code: 'conflict' });
    expect(s.keys()).toEqual(['live']);
    const router = new Router();
    s.backups.register(router);
    expect(await router.invoke('store.backups.restore', { id: '../switchboard.db' })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    expect(await router.invoke('store.backups.restore', { id: backupName(0) })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});
