import { IpcFailure } from '../../../shared/contract';
import {
  SETTING_KEYS,
  SETTING_VALUE_MAX_CHARS,
  SETTINGS,
  defaultSettings,
  isSettingKey,
  parseSetting,
  settingDef,
  settingEntrySchema,
  type SettingEntry,
  type SettingKey,
  type SettingProblem,
  type SettingValue,
  type SettingValues,
} from '../../../shared/contract/settings';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { StoreService } from '../store/store-service';
import { migrateLegacySettings } from './legacy-settings';

/** How services read settings: always the value in force (validated, or the default). */
export interface SettingsReader {
  get<K extends SettingKey>(key: K): SettingValue<K>;
}

/** Every key at its default (for code run without a store, e.g. benchmarks). */
export const defaultsReader: SettingsReader = { get: (key) => SETTINGS[key].default as SettingValue<typeof key> };

type SettingsStore = Pick<StoreService, 'available' | 'getSettingJson' | 'setSetting' | 'deleteSetting' | 'settingKeys'>;

/**
 * The settings of the app over the store's settings table. Reads are live (straight from SQLite, so a
 * restored backup is seen at once); a stored value that does not parse or fit its key's schema reads as
 * the default and is reported once (app.notice, and settings.getAll's problems) until the key is written.
 */
export class SettingsService implements SettingsReader, Disposable {
  private readonly problems = new Map<SettingKey, string>();
  private readonly listeners = new Set<(entry: SettingEntry) => void>();

  constructor(
    private readonly store: SettingsStore,
    private readonly bus: EventBus,
  ) {
    this.scan();
  }

  /** Reads every stored key once (legacy keys moved first), so problems are known before any window asks. */
  private scan(): void {
    if (!this.store.available) return;
    try {
      migrateLegacySettings(this.store);
    } catch (e) {
      console.error('moving legacy settings failed:', e);
    }
    try {
      for (const key of this.store.settingKeys()) if (isSettingKey(key)) this.read(key, false);
    } catch (e) {
      console.error('settings scan failed:', e);
    }
  }

  private read<K extends SettingKey>(key: K, notify: boolean): SettingValue<K> {
    let json: string | null;
    try {
      json = this.store.available ? this.store.getSettingJson(key) : null;
    } catch {
      return parseSetting(key, undefined).value; // the store is in trouble: the default
    }
    if (json === null) return parseSetting(key, undefined).value;
    let raw: unknown;
    try {
      raw = JSON.parse(json) as unknown;
    } catch {
      return this.fellBack(key, 'the stored text is not JSON', notify);
    }
    const { value, problem } = parseSetting(key, raw);
    if (problem) return this.fellBack(key, problem, notify);
    return value;
  }

  private fellBack<K extends SettingKey>(key: K, why: string, notify: boolean): SettingValue<K> {
    if (!this.problems.has(key)) {
      const message = `The setting “${settingDef(key).label}” (${key}) had a stored value Switchboard cannot use (${why.slice(0, 200)}); the default is used until you change it.`;
      this.problems.set(key, message);
      if (notify) this.bus.emit('app.notice', { level: 'warning', message });
    }
    return parseSetting(key, undefined).value;
  }

  get<K extends SettingKey>(key: K): SettingValue<K> {
    return this.read(key, true);
  }

  /** Every key; problems found here are returned by settings.getAll (the window that asked shows them) rather than announced. */
  all(): SettingValues {
    const values = defaultSettings() as Record<SettingKey, unknown>;
    for (const key of SETTING_KEYS) values[key] = this.read(key, false);
    return values as SettingValues;
  }

  problemList(): SettingProblem[] {
    return [...this.problems].map(([key, message]) => ({ key, message }));
  }

  /** Validates (schema, size cap), stores, and tells every window and service. */
  set(input: unknown): SettingEntry {
    const parsed = settingEntrySchema.safeParse(input);
    if (!parsed.success) throw new IpcFailure('invalid_params', parsed.error.issues[0]?.message ?? 'invalid setting');
    const entry = parsed.data;
    const json = JSON.stringify(entry.value);
    const max = settingDef(entry.key).maxChars ?? SETTING_VALUE_MAX_CHARS;
    if (json.length > max) throw new IpcFailure('invalid_params', `the value of ${entry.key} is too large (${json.length} characters; at most ${max})`);
    this.store.setSetting(entry.key, entry.value);
    this.problems.delete(entry.key);
    this.changed(entry);
    return entry;
  }

  reset(key: SettingKey): void {
    this.store.deleteSetting(key);
    this.problems.delete(key);
    this.changed({ key, value: parseSetting(key, undefined).value } as SettingEntry);
  }

  /** Called after every change (set or reset) made through this service. */
  onChange(listener: (entry: SettingEntry) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  private changed(entry: SettingEntry): void {
    for (const l of this.listeners) {
      try {
        l(entry);
      } catch (e) {
        console.error('settings listener failed:', e);
      }
    }
    this.bus.emit('settings.changed', entry);
  }

  register(router: Router): void {
    router.handle('settings.get', ({ key }) => {
      const value = this.get(key);
      let stored = false;
      try {
        stored = this.store.available && this.store.getSettingJson(key) !== null;
      } catch {
        /* the store is in trouble */
      }
      return { entry: { key, value } as SettingEntry, stored };
    });
    router.handle('settings.getAll', () => ({ values: this.all(), problems: this.problemList() }));
    router.handle('settings.set', (entry) => {
      this.set(entry);
      return {};
    });
    router.handle('settings.reset', ({ key }) => {
      this.reset(key);
      return {};
    });
  }

  dispose(): void {
    this.listeners.clear();
  }
}
