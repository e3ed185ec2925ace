import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { StoreService } from '../../../src/main/core/store/store-service';
import { tempDir } from '../../support/app-server';

/** Checkpoint settings an older Switchboard kept under its own store key become keys of the settings registry. */

const dirs: string[] = [];
const cores: AppCore[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A store as the older app left it: `rows` written raw into the settings table. */
function olderStore(rows: Record<string, unknown>): string {
  const dir = tempDir('sb-legacy-settings-');
  dirs.push(dir);
  new StoreService(dir).dispose();
  const db = new Database(join(dir, 'switchboard.db'));
  for (const [key, value] of Object.entries(rows)) db.prepare('INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, 0)').run(key, JSON.stringify(value));
  db.close();
  return dir;
}

function start(dataDir: string): AppCore {
  const core = new AppCore({ dataDir, transport: 'browser', version: 'test' });
  cores.push(core);
  return core;
}

const storedKeys = (dataDir: string): Record<string, unknown> => {
  const db = new Database(join(dataDir, 'switchboard.db'), { readonly: true });
  const rows = db.prepare('SELECT key, value_json FROM settings').all() as Array<{ key: string; value_json: string }>;
  db.close();
  return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value_json) as unknown]));
};

describe('legacy checkpoint settings', () => {
  it('are moved to the registry keys: every value the user chose is in force, and the old key is gone', async () => {
    const dataDir = olderStore({ 'checkpoints.settings': { retentionDays: 7, maxBytesPerFolder: 3 * 1024 ** 3, maxFileBytes: 1024 * 1024, excludes: ['logs/', '*.bin'] } });
    const core = start(dataDir);
    expect(core.settings.get('checkpoints.retentionDays')).toBe(7);
    expect(core.settings.get('checkpoints.maxBytesPerFolder')).toBe(3 * 1024 ** 3);
    expect(core.settings.get('checkpoints.maxFileBytes')).toBe(1024 * 1024);
    expect(core.settings.get('checkpoints.excludes')).toEqual(['logs/', '*.bin']);
    expect(core.checkpoints.settings()).toEqual({ retentionDays: 7, maxBytesPerFolder: 3 * 1024 ** 3, maxFileBytes: 1024 * 1024, excludes: ['logs/', '*.bin'] });
    expect(core.settings.problemList()).toEqual([]);
    await core.dispose();
    cores.length = 0;
    expect(storedKeys(dataDir)).not.toHaveProperty(['checkpoints.settings']);
    // A second start finds them where they are now.
    expect(start(dataDir).settings.get('checkpoints.retentionDays')).toBe(7);
  });

  it('a field that no longer fits is kept stored and reported, the others apply; a key already written wins', async () => {
    const dataDir = olderStore({
      'checkpoints.settings': { retentionDays: 0, maxFileBytes: 2048, excludes: ['old/'] },
      'checkpoints.excludes': ['new/'],
    });
    const core = start(dataDir);
    expect(core.settings.get('checkpoints.retentionDays')).toBe(30);
    expect(core.settings.get('checkpoints.maxFileBytes')).toBe(2048);
    expect(core.settings.get('checkpoints.excludes')).toEqual(['new/']);
    expect(core.settings.get('checkpoints.maxBytesPerFolder')).toBe(2 * 1024 ** 3);
    expect(core.settings.problemList().map((p) => p.key)).toEqual(['checkpoints.retentionDays']);
    await core.dispose();
    cores.length = 0;
    const stored = storedKeys(dataDir);
    expect(stored['checkpoints.retentionDays']).toBe(0);
    expect(stored).not.toHaveProperty(['checkpoints.settings']);
  });

  it('a change made through settings.set is heard by the checkpoint service and announced to windows', async () => {
    const core = start(olderStore({}));
    const heard: unknown[] = [];
    core.bus.connect((name, payload) => name === 'settings.changed' && heard.push(payload));
    const r = await core.router.invoke('settings.set', { key: 'checkpoints.retentionDays', value: 12 });
    expect(r.ok).toBe(true);
    expect(core.checkpoints.settings().retentionDays).toBe(12);
    expect(heard).toEqual([{ key: 'checkpoints.retentionDays', value: 12 }]);
    const refused = await core.router.invoke('settings.set', { key: 'checkpoints.maxFileBytes', value: 10 });
    expect(refused.ok).toBe(false);
    expect((await core.router.invoke('checkpoints.getSettings' as never, {})).ok).toBe(false);
  });
});
