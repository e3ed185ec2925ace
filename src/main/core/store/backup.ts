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

/** The start-up backup waits this long, so that it never competes with the first window's loading. */
export const STARTUP_BACKUP_DELAY_MS = 20_000;
/** The backup copies in steps of about this long, so that the event loop answers between them. */
const STEP_MS = 4;
const MIN_PAGES = 16;
const MAX_PAGES = 1024;

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
  private startupTimer: NodeJS.Timeout | null = null;

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

  /**
   * The start-up backup, later: after `delayMs` (the first window has loaded by then); a failure is
   * logged, not thrown. Resolves when it is done or was not needed (for tests and benchmarks).
   */
  scheduleStartupBackup(delayMs = STARTUP_BACKUP_DELAY_MS): Promise<BackupInfo | null> {
    return new Promise((resolve) => {
      this.startupTimer = setTimeout(() => {
        this.startupTimer = null;
        if (this.disposed) return resolve(null);
        this.maybeBackup().then(resolve, (e: unknown) => {
          if (!this.disposed) console.error('store backup failed:', e);
          resolve(null);
        });
      }, delayMs);
      this.startupTimer.unref();
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
      // Each step holds the event loop while it copies: size the steps to take about STEP_MS each (a step
      // that reads from a cold disk takes longer than one served from the page cache).
      let pages = MIN_PAGES * 4;
      let last = performance.now();
      await db.backup(partial, {
        progress: () => {
          if (this.disposed) throw new Error('backup cancelled: the app is shutting down');
          const now = performance.now();
          const took = Math.max(0.1, now - last);
          last = now;
          pages = Math.round(Math.min(MAX_PAGES, Math.max(MIN_PAGES, pages * Math.min(2, STEP_MS / took))));
          return pages;
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
    } finally {
      // Opening the copy to check it leaves its -wal/-shm beside it; a failed copy leaves itself too.
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(partial + suffix, { force: true });
    }
    this.prune();
    return { id: name, createdAt: at, bytes: statSync(join(this.dir, name)).size };
  }

  private prune(): void {
    for (const old of this.list().slice(this.keep)) rmSync(join(this.dir, old.id), { force: true });
    // What a backup cut short (the app killed mid-copy) left behind: never a backup, only disk used.
    for (const name of readdirSync(this.dir)) if (/^\..*\.partial(-wal|-shm|-journal)?$/.test(name)) rmSync(join(this.dir, name), { force: true });
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
    if (this.startupTimer) clearTimeout(this.startupTimer);
    return this.chain.then(() => undefined);
  }
}
