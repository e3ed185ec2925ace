import { join } from 'node:path';
import type { StoreStatus } from '../../../shared/contract/app';
import { IpcFailure } from '../../../shared/contract';
import type { Disposable } from '../base/lifecycle';
import { moveAside, openDatabase, StoreOpenError, type Db } from './database';
import { repairStoredSecrets } from './secrets-repair';
import { repairStoreTimes } from './time-repair';

/**
 * Owns the one SQLite file. When it cannot be opened the app still starts, reports why (path and
 * SQLite's message) and offers to move the file aside; it never silently starts empty.
 */
export class StoreService implements Disposable {
  readonly path: string;
  private database: Db | null = null;
  private currentStatus: StoreStatus;

  private readonly checkpointTimer: ReturnType<typeof setInterval>;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'switchboard.db');
    this.currentStatus = this.open();
    // Keep the WAL short without stalling writers: a passive checkpoint every few seconds copies what
    // it can and never waits for a lock.
    this.checkpointTimer = setInterval(() => this.checkpoint(), 3000);
    this.checkpointTimer.unref();
  }

  checkpoint(): void {
    try {
      this.database?.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      /* busy or closed: the next tick tries again */
    }
  }

  private open(): StoreStatus {
    try {
      this.database = openDatabase(this.path);
      try {
        repairStoreTimes(this.database);
      } catch (e) {
        // The store reads as it is (times with a fraction are rounded as they are read); the next start tries again.
        console.error(`store: repairing the stored times of ${this.path} failed:`, e);
      }
      try {
        repairStoredSecrets(this.database);
      } catch (e) {
        // The values stay where they were until the next start tries again; nothing is lost.
        console.error(`store: removing the MCP servers' secrets from the message log of ${this.path} failed:`, e);
      }
      return { ok: true, path: this.path };
    } catch (e) {
      this.database = null;
      if (e instanceof StoreOpenError) return { ok: false, path: this.path, kind: e.kind, message: e.message };
      return { ok: false, path: this.path, kind: 'unreadable', message: String(e) };
    }
  }

  get status(): StoreStatus {
    return this.currentStatus;
  }

  /** The open database; requests that need it fail with a typed error while the store is broken. */
  get db(): Db {
    if (!this.database) throw new IpcFailure('unavailable', `the store at ${this.path} could not be opened`);
    return this.database;
  }

  get available(): boolean {
    return this.database !== null;
  }

  /** Keeps the broken file beside the new one and starts fresh. */
  reset(): { movedTo: string; store: StoreStatus } {
    this.database?.close();
    this.database = null;
    const movedTo = moveAside(this.path);
    this.currentStatus = this.open();
    return { movedTo, store: this.currentStatus };
  }

  /** Closes the file, lets `replace` swap it (restoring a backup: see backup.ts), then opens it again. */
  replaceFile(replace: (path: string) => void): StoreStatus {
    this.database?.close();
    this.database = null;
    try {
      replace(this.path);
    } finally {
      this.currentStatus = this.open();
    }
    return this.currentStatus;
  }

  getSetting(key: string): unknown {
    const json = this.getSettingJson(key);
    return json === null ? null : (JSON.parse(json) as unknown);
  }

  /** The stored JSON text of a setting, unparsed (null when absent). */
  getSettingJson(key: string): string | null {
    const row = this.db.prepare('SELECT value_json FROM settings WHERE key = ?').get(key) as { value_json: string } | undefined;
    return row ? row.value_json : null;
  }

  /** Every stored setting key. */
  settingKeys(): string[] {
    return (this.db.prepare('SELECT key FROM settings ORDER BY key').all() as Array<{ key: string }>).map((r) => r.key);
  }

  deleteSetting(key: string): void {
    this.db.prepare('DELETE FROM settings WHERE key = ?').run(key);
  }

  setSetting(key: string, value: unknown): void {
    this.db
      .prepare(
        'INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at',
      )
      .run(key, JSON.stringify(value ?? null), Date.now());
  }

  dispose(): void {
    clearInterval(this.checkpointTimer);
    this.checkpoint();
    this.database?.close();
    this.database = null;
  }
}
