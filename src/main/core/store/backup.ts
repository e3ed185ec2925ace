import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupInfo } from '../../../shared/contract/history';
import type { StoreStatus } from '../../../shared/contract/app';
import { IpcFailure } from '../../../shared/contract';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import type { StoreService } from './store-service';

const NAME = /^switchboard-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z\.db$/;
const DAY = 86_400_000;

export interface BackupOptions {
  /** Defaults to <dataDir>/backups. */
  dir?: string;
  /** How many backups to keep (the oldest go first); a function is asked at each backup (a setting). */
  keep?: number | (() => number);
  /** A start-up backup is made only if the newest is older than this. */
  minIntervalMs?: number;
  now?: () => number;
}

export const backupName = (ms: number): string => {
  const iso = new Date(ms).toISOString(); // 2025-01-02T03:04:05.678Z
  return `switchboard-${iso.slice(0, 10).replace(/-/g, '')}T${iso.slice(11, 19).replace(/:/g, '')}${iso.slice(20, 23)}Z.db`;
};

const parseName = (name: string): number | null => {
  const m = NAME.exec(name);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, ms] = m;
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms));
  return Number.isNaN(t) ? null : t;
};

/**
 * Copies of the store made with SQLite's online backup API (consistent while the app writes): one at
 * start-up at most once a day, the last `keep` kept. A backup can replace a damaged store; the replaced
 * file is kept beside it.
 */
export class BackupService implements Disposable {
  readonly dir: string;
  private readonly keepOption: number | (() => number);
  private readonly minIntervalMs: number;
  private readonly now: () => number;
  private chain: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly store: StoreService,
    dataDir: string,
    options: BackupOptions = {},
  ) {
    this.dir = options.dir ?? join(dataDir, 'backups');
    this.keepOption = options.keep ?? 5;
    this.minIntervalMs = options.minIntervalMs ?? DAY;
    this.now = options.now ?? Date.now;
  }

  private get keep(): number {
    return Math.max(1, typeof this.keepOption === 'function' ? this.keepOption() : this.keepOption);
  }

  /** Backups, newest first. */
  list(): BackupInfo[] {
    if (!existsSync(this.dir)) return [];
    const out: BackupInfo[] = [];
    for (const name of readdirSync(this.dir)) {
      const createdAt = parseName(name);
      if (createdAt === null) continue;
      try {
        out.push({ id: name, createdAt, bytes: statSync(join(this.dir, name)).size });
      } catch {
        // removed meanwhile
      }
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** The start-up backup: made if the store is healthy and the newest backup is older than a day. */
  maybeBackup(): Promise<BackupInfo | null> {
    return this.serial(async () => {
      if (!this.store.available) return null;
      const newest = this.list()[0];
      if (newest && this.now() - newest.createdAt < this.minIntervalMs) return null;
      return this.backupNow();
    });
  }

  create(): Promise<BackupInfo> {
    return this.serial(() => this.backupNow());
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async backupNow(): Promise<BackupInfo> {
    if (this.disposed) throw new IpcFailure('unavailable', 'the app is shutting down');
    const db = this.store.db;
    mkdirSync(this.dir, { recursive: true });
    let at = this.now();
    // Two backups within the same millisecond (tests, a fast double click) must not collide.
    while (existsSync(join(this.dir, backupName(at)))) at += 1;
    const name = backupName(at);
    const partial = join(this.dir, `.${name}.partial`);
    rmSync(partial, { force: true });
    try {
      await db.backup(partial, {
        progress: () => {
          if (this.disposed) throw new Error('backup cancelled: the app is shutting down');
          return 4096;
        },
      });
      // A cheap sanity check that the copy opens as a database before it counts as a backup.
      const copy = new Database(partial, { readonly: true, fileMustExist: true });
      try {
        copy.prepare('SELECT count(*) FROM sqlite_master').get();
      } finally {
        copy.close();
      }
      renameSync(partial, join(this.dir, name));
    } catch (e) {
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(partial + suffix, { force: true });
      throw e;
    }
    this.prune();
    return { id: name, createdAt: at, bytes: statSync(join(this.dir, name)).size };
  }

  private prune(): void {
    for (const old of this.list().slice(this.keep)) rmSync(join(this.dir, old.id), { force: true });
  }

  /**
   * Replaces the store file with a backup after checking the backup's integrity. The current file (with its
   * WAL) is renamed to `<file>.replaced-<time>`, never deleted.
   */
  restore(id: string): Promise<{ store: StoreStatus; movedTo: string | null; restartRequired: boolean }> {
    return this.serial(async () => {
      const createdAt = parseName(id);
      const file = join(this.dir, id);
      if (createdAt === null || !existsSync(file)) throw new IpcFailure('not_found', `no backup named ${id}`);
      let check: unknown;
      try {
        const copy = new Database(file, { readonly: true, fileMustExist: true });
        try {
          check = copy.pragma('integrity_check', { simple: true });
        } finally {
          copy.close();
        }
      } catch (e) {
        check = e instanceof Error ? e.message : String(e);
      }
      if (check !== 'ok') throw new IpcFailure('conflict', `the backup ${id} is damaged (${String(check)}); choose another one`);
      const wasOpen = this.store.available;
      let movedTo: string | null = null;
      const status = this.store.replaceFile((path) => {
        const stamp = new Date(this.now()).toISOString().replace(/[:.]/g, '-');
        const target = `${path}.replaced-${stamp}`;
        for (const suffix of ['', '-wal', '-shm']) {
          if (existsSync(path + suffix)) {
            renameSync(path + suffix, target + suffix);
            if (suffix === '') movedTo = target;
          }
        }
        copyFileSync(file, path);
      });
      return { store: status, movedTo, restartRequired: wasOpen };
    });
  }

  register(router: Router): void {
    router.handle('store.backups.list', () => ({ dir: this.dir, backups: this.list() }));
    router.handle('store.backups.create', async () => ({ backup: await this.create() }));
    router.handle('store.backups.restore', ({ id }) => this.restore(id));
  }

  dispose(): Promise<void> {
    this.disposed = true;
    return this.chain.then(() => undefined);
  }
}
