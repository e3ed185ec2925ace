import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { EventBus } from '../../../src/main/core/base/event-bus';
import { Router } from '../../../src/main/core/base/router';
import { SettingsService } from '../../../src/main/core/settings/settings-service';
import { StoreService } from '../../../src/main/core/store/store-service';
import type { EventName } from '../../../src/shared/contract';
import { tempDir } from '../../support/app-server';

const dirs: string[] = [];
const open: Array<{ dispose(): unknown }> = [];
afterEach(async () => {
  for (const d of open.splice(0).reverse()) await d.dispose();
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A real store file; `seed` writes raw rows first (as an older or damaged app would have left them). */
function setup(seed: Array<[string, string]> = []) {
  const dir = tempDir('sb-settings-');
  dirs.push(dir);
  if (seed.length > 0) {
    const first = new StoreService(dir);
    first.dispose();
    const db = new Database(join(dir, 'switchboard.db'));
    for (const [key, json] of seed) db.prepare('INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, 0)').run(key, json);
    db.close();
  }
  const store = new StoreService(dir);
  const bus = new EventBus();
  const events: Array<{ name: EventName; payload: unknown }> = [];
  bus.connect((name, payload) => events.push({ name, payload }));
  const router = new Router();
  const settings = new SettingsService(store, bus);
  settings.register(router);
  open.push(store, settings);
  return { dir, store, bus, router, settings, events };
}

describe('settings service', () => {
  it('stores a valid value, reads it back typed, and tells every listener (settings.changed)', async () => {
    const t = setup();
    const heard: unknown[] = [];
    t.settings.onChange((e) => heard.push(e));
    expect(t.settings.get('appearance.theme')).toBe('system');
    const r = await t.router.invoke('settings.set', { key: 'appearance.theme', value: 'dark' });
    expect(r.ok).toBe(true);
    expect(t.settings.get('appearance.theme')).toBe('dark');
    expect(heard).toEqual([{ key: 'appearance.theme', value: 'dark' }]);
    expect(t.events).toContainEqual({ name: 'settings.changed', payload: { key: 'appearance.theme', value: 'dark' } });
    const got = await t.router.invoke('settings.get', { key: 'appearance.theme' });
    expect(got).toEqual({ ok: true, value: { entry: { key: 'appearance.theme', value: 'dark' }, stored: true } });
  });

  it('refuses a value of the wrong shape for its key, or an unknown key, and keeps what was there', async () => {
    const t = setup();
    await t.router.invoke('settings.set', { key: 'agents.maxRestarts', value: 3 });
    for (const bad of [
      { key: 'agents.maxRestarts', value: 'three' },
      { key: 'agents.maxRestarts', value: -1 },
      { key: 'appearance.theme', value: 'purple' },
      { key: 'not.a.setting', value: 1 },
    ]) {
      const r = await t.router.invoke('settings.set', bad);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error.code).toBe('invalid_params');
    }
    expect(t.settings.get('agents.maxRestarts')).toBe(3);
    expect(t.store.getSettingJson('not.a.setting')).toBeNull();
    expect(t.events.filter((e) => e.name === 'settings.changed')).toHaveLength(1);
  });

  it('caps the size of a value', async () => {
    const t = setup();
    const folders = Array.from({ length: 50 }, (_, i) => `/${String(i).padStart(2, '0')}/${'x'.repeat(1500)}`);
    const r = await t.router.invoke('settings.set', { key: 'sessions.recentFolders', value: folders });
    expect(!r.ok && r.error).toMatchObject({ code: 'invalid_params', message: expect.stringMatching(/too large/) });
    expect(t.settings.get('sessions.recentFolders')).toEqual([]);
    // Within the cap it is kept.
    expect((await t.router.invoke('settings.set', { key: 'sessions.recentFolders', value: folders.slice(0, 10) })).ok).toBe(true);
  });

  it('a stored value that is not JSON, or does not fit its key, reads as the default and is reported once', async () => {
    const t = setup([
      ['appearance.theme', '"purple"'],
      ['agents.idleStopMinutes', '{not json'],
      ['notifications.turnEnd', 'false'],
      ['some.old.key', '42'],
    ]);
    expect(t.settings.get('appearance.theme')).toBe('system');
    expect(t.settings.get('agents.idleStopMinutes')).toBe(10);
    expect(t.settings.get('notifications.turnEnd')).toBe(false);
    const all = await t.router.invoke('settings.getAll', {});
    expect(all.ok).toBe(true);
    if (!all.ok) return;
    const { values, problems } = all.value as { values: Record<string, unknown>; problems: Array<{ key: string; message: string }> };
    expect(values['appearance.theme']).toBe('system');
    expect(values['notifications.turnEnd']).toBe(false);
    expect(problems.map((p) => p.key).sort()).toEqual(['agents.idleStopMinutes', 'appearance.theme']);
    expect(problems.find((p) => p.key === 'agents.idleStopMinutes')!.message).toMatch(/not JSON.*default is used/);
    // Nothing was lost: the stored text is still there until the user changes the setting.
    expect(t.store.getSettingJson('appearance.theme')).toBe('"purple"');
    await t.router.invoke('settings.set', { key: 'appearance.theme', value: 'light' });
    const after = await t.router.invoke('settings.getAll', {});
    expect(after.ok && (after.value as { problems: Array<{ key: string }> }).problems.map((p) => p.key)).toEqual(['agents.idleStopMinutes']);
  });

  it('a value found unusable while running (a restored backup) is told to the windows at once', () => {
    const t = setup();
    t.store.setSetting('agents.floodSeconds', 'soon');
    expect(t.settings.get('agents.floodSeconds')).toBe(5);
    expect(t.settings.get('agents.floodSeconds')).toBe(5);
    const notices = t.events.filter((e) => e.name === 'app.notice');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.payload).toMatchObject({ level: 'warning', message: expect.stringMatching(/agents\.floodSeconds.*default is used/) });
  });

  it('reset removes the stored value and announces the default', async () => {
    const t = setup();
    await t.router.invoke('settings.set', { key: 'appearance.terminalFontSize', value: 18 });
    expect((await t.router.invoke('settings.reset', { key: 'appearance.terminalFontSize' })).ok).toBe(true);
    expect(t.store.getSettingJson('appearance.terminalFontSize')).toBeNull();
    expect(t.events.at(-1)).toEqual({ name: 'settings.changed', payload: { key: 'appearance.terminalFontSize', value: 13 } });
  });

  it('reads defaults while the store is broken', () => {
    const t = setup();
    t.store.dispose();
    const broken = { ...t.store, available: false } as unknown as StoreService;
    const s = new SettingsService(broken, t.bus);
    expect(s.get('agents.autoRestart')).toBe(true);
  });
});

describe('settings in the app core', () => {
  it('backup retention follows the history.backupsKept setting at the next backup', async () => {
    const dir = tempDir('sb-settings-core-');
    dirs.push(dir);
    const core = new AppCore({ dataDir: dir, transport: 'browser', version: 'test' });
    open.push(core);
    for (let i = 0; i < 6; i++) await core.router.invoke('store.backups.create', {});
    const count = async () => {
      const r = await core.router.invoke('store.backups.list', {});
      return r.ok ? (r.value as { backups: unknown[] }).backups.length : -1;
    };
    expect(await count()).toBe(5); // the default
    expect((await core.router.invoke('settings.set', { key: 'history.backupsKept', value: 2 })).ok).toBe(true);
    await core.router.invoke('store.backups.create', {});
    expect(await count()).toBe(2);
  });
});
