import { create } from 'zustand';
import { defaultSettings, type SettingInput, type SettingKey, type SettingValue, type SettingValues, type SettingEntryInput } from '@shared/contract/settings';
import type { Api } from '../ipc/client';
import { useNotices } from './notices';

/**
 * The app's settings as this window knows them: loaded once (settings.getAll), then kept current by
 * settings.changed (a change made in any window, or by the core). Until loaded, every key is at its default.
 */
export const useSettingValues = create<{ values: SettingValues; loaded: boolean }>(() => ({ values: defaultSettings(), loaded: false }));

/** The value in force of one setting (re-renders when it changes). */
export function useSetting<K extends SettingKey>(key: K): SettingValue<K> {
  return useSettingValues((s) => s.values[key]);
}

/** The value in force, outside React. */
export function settingNow<K extends SettingKey>(key: K): SettingValue<K> {
  return useSettingValues.getState().values[key];
}

/** Loads every setting, shows the stored values that fell back to defaults, and follows changes. Returns the unsubscribe. */
export function startSettings(api: Api): { ready: Promise<void>; stop(): void } {
  const off = api.on('settings.changed', (e) => {
    useSettingValues.setState((s) => ({ values: { ...s.values, [e.key]: e.value } }));
  });
  const ready = api.call('settings.getAll', {}).then((r) => {
    if (!r.ok) {
      useNotices.getState().push('warning', `Settings could not be read (${r.error.message}); the defaults are used.`);
      return;
    }
    useSettingValues.setState({ values: r.value.values, loaded: true });
    for (const p of r.value.problems) useNotices.getState().push('warning', p.message);
  });
  return { ready, stop: off };
}

/**
 * Writes a setting (the core validates it); shown at once in this window, and put back if the core refuses
 * it. Resolves to the error message, or null when saved (settings.changed then brings the stored value).
 */
export async function saveSetting<K extends SettingKey>(api: Api, key: K, value: SettingInput<K>): Promise<string | null> {
  const before = useSettingValues.getState().values[key];
  const shown = value as unknown as SettingValue<K>;
  useSettingValues.setState((s) => ({ values: { ...s.values, [key]: shown } }));
  const r = await api.call('settings.set', { key, value } as SettingEntryInput);
  if (r.ok) return null;
  if (useSettingValues.getState().values[key] === shown) useSettingValues.setState((s) => ({ values: { ...s.values, [key]: before } }));
  return r.error.message;
}

/** One setting read straight from the core (for code that runs before the settings are loaded). */
export async function fetchSetting<K extends SettingKey>(api: Api, key: K): Promise<SettingValue<K> | null> {
  const r = await api.call('settings.get', { key });
  return r.ok ? (r.value.entry.value as SettingValue<K>) : null;
}
