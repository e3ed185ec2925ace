import type { SettingKey } from '../../../shared/contract/settings';
import type { StoreService } from '../store/store-service';

/**
 * Values once kept under a private store key of their service, now keys of the settings registry: the
 * old key, and which of its fields became which key.
 */
export const LEGACY_SETTINGS: Record<string, Record<string, SettingKey>> = {
  'checkpoints.settings': {
    retentionDays: 'checkpoints.retentionDays',
    maxBytesPerFolder: 'checkpoints.maxBytesPerFolder',
    maxFileBytes: 'checkpoints.maxFileBytes',
    excludes: 'checkpoints.excludes',
  },
};

type LegacyStore = Pick<StoreService, 'getSettingJson' | 'setSetting' | 'deleteSetting'>;

/**
 * Moves each stored legacy value to its registry keys (a key already written keeps its value), then removes
 * the old key. A value is moved as stored: one that no longer fits its key reads as the default, with the
 * settings' fallback notice, and stays stored until the user changes it. Safe to run again after a crash.
 */
export function migrateLegacySettings(store: LegacyStore): void {
  for (const [oldKey, fields] of Object.entries(LEGACY_SETTINGS)) {
    const json = store.getSettingJson(oldKey);
    if (json === null) continue;
    let old: unknown;
    try {
      old = JSON.parse(json);
    } catch {
      continue; // unreadable before too: left as it is
    }
    if (typeof old !== 'object' || old === null || Array.isArray(old)) continue;
    for (const [field, key] of Object.entries(fields)) {
      if (!Object.prototype.hasOwnProperty.call(old, field) || store.getSettingJson(key) !== null) continue;
      store.setSetting(key, (old as Record<string, unknown>)[field]);
    }
    store.deleteSetting(oldKey);
  }
}
