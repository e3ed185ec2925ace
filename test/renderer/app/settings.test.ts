import { beforeEach, describe, expect, it } from 'vitest';
import { err, ok } from '@shared/contract';
import { defaultSettings } from '@shared/contract/settings';
import { useNotices } from '../../../src/renderer/src/app/notices';
import { saveSetting, settingNow, startSettings, useSettingValues } from '../../../src/renderer/src/app/settings';
import { FakeApi, settle } from '../support/fake-api';

describe('settings as this window knows them (app/settings)', () => {
  beforeEach(() => {
    useSettingValues.setState(useSettingValues.getInitialState(), true);
    useNotices.setState({ notices: [] });
  });

  it('every key is at its default until loaded; then the stored values, and a notice for each that fell back', async () => {
    const api = new FakeApi().handle('settings.getAll', () =>
      ok({ values: { ...defaultSettings(), 'appearance.threadFontSize': 16 }, problems: [{ key: 'appearance.theme', message: 'appearance.theme: “neon” is not a theme; the default is used.' }] }),
    );
    expect(settingNow('appearance.threadFontSize')).toBe(13);
    const { ready } = startSettings(api);
    await ready;
    expect(useSettingValues.getState().loaded).toBe(true);
    expect(settingNow('appearance.threadFontSize')).toBe(16);
    expect(useNotices.getState().notices.map((n) => [n.level, n.message])).toEqual([['warning', 'appearance.theme: “neon” is not a theme; the default is used.']]);
  });

  it('keeps the defaults, and says so, when the settings cannot be read', async () => {
    const { ready } = startSettings(new FakeApi().handle('settings.getAll', () => err('unavailable', 'the database is locked')));
    await ready;
    expect(useSettingValues.getState().loaded).toBe(false);
    expect(settingNow('appearance.threadFontSize')).toBe(13);
    expect(useNotices.getState().notices[0]?.message).toBe('Settings could not be read (the database is locked); the defaults are used.');
  });

  it('follows a change made in another window until stopped', async () => {
    const api = new FakeApi().handle('settings.getAll', () => ok({ values: defaultSettings(), problems: [] }));
    const s = startSettings(api);
    await s.ready;
    api.emit('settings.changed', { key: 'appearance.editorFontSize', value: 18 });
    expect(settingNow('appearance.editorFontSize')).toBe(18);
    s.stop();
    api.emit('settings.changed', { key: 'appearance.editorFontSize', value: 20 });
    expect(settingNow('appearance.editorFontSize')).toBe(18);
  });

  it('shows a saved value at once, and puts the old one back when the core refuses it', async () => {
    let answer = ok({});
    const api = new FakeApi().handle('settings.set', () => answer);
    const saving = saveSetting(api, 'appearance.threadFontSize', 20);
    expect(settingNow('appearance.threadFontSize')).toBe(20);
    expect(await saving).toBeNull();
    expect(settingNow('appearance.threadFontSize')).toBe(20);

    answer = err('invalid_params', 'appearance.threadFontSize: at most 32');
    expect(await saveSetting(api, 'appearance.threadFontSize', 30)).toBe('appearance.threadFontSize: at most 32');
    expect(settingNow('appearance.threadFontSize')).toBe(20);
    await settle();
  });
});
