import { homedir } from 'node:os';
import type { AppInfo } from '../shared/contract/app';
import { registerAcpService } from './core/acp/acp-service';
import type { SecretCipher } from './core/agents/secret-store';
import { registerShellService } from './core/terminals/shell-service';
import { PtyHost } from './core/terminals/pty-host';
import { StoreService } from './core/store/store-service';
import { BackupService } from './core/store/backup';
import { CompareService } from './core/compare/compare-service';
import { HistoryService } from './core/history/history-service';
import { RegistryService } from './core/registry/service';
import { EventBus } from './core/base/event-bus';
import { DisposableStore, type Disposable } from './core/base/lifecycle';
import { Router } from './core/base/router';

export interface CoreOptions {
  dataDir: string;
  transport: AppInfo['transport'];
  version: string;
  /** Opens a link in the system browser; the Electron glue passes shell.openExternal. */
  openExternal?: (url: string) => Promise<boolean>;
  /** Encrypts stored secrets; the Electron glue passes one built on safeStorage (default: a 0600 key file). */
  secretCipher?: SecretCipher;
  /** How long after start the daily backup waits (default: backup.ts STARTUP_BACKUP_DELAY_MS). */
  startupBackupDelayMs?: number;
}

/**
 * The main process below the Electron glue: services, the store and the request router.
 * Plain Node; the Electron glue and the WebSocket server are two ways to reach it.
 */
export class AppCore implements Disposable {
  readonly router = new Router();
  readonly bus = new EventBus();
  readonly store: StoreService;
  readonly ptys: PtyHost;
  /** Session history; a MessageLog is indexed once passed to history.attach(log). */
  readonly history: HistoryService;
  readonly backups: BackupService;
  /** The ACP Registry: installed agents become rows of the agents table. */
  readonly registry: RegistryService;
  private readonly disposables = new DisposableStore();

  constructor(readonly options: CoreOptions) {
    this.store = this.disposables.add(new StoreService(options.dataDir));
    this.ptys = this.disposables.add(new PtyHost());
    this.registerAppRequests();
    registerShellService(this.router, this.bus, this.ptys);
    // One MessageLog for the store; the history index is attached to it when it is first used.
    this.own(registerAcpService(this, {
        onMessageLog: (log) => this.history.attach(log),
        ...(options.secretCipher ? { secretCipher: options.secretCipher } : {}),
      }));
    this.history = this.disposables.add(new HistoryService(this.store, this.bus));
    this.history.register(this.router);
    this.history.start();
    this.backups = this.disposables.add(new BackupService(this.store, options.dataDir));
    this.backups.register(this.router);
    this.registry = this.disposables.add(
      new RegistryService({ dataDir: options.dataDir, store: this.store, router: this.router, bus: this.bus }),
    );
    this.disposables.add(new CompareService(this.store, this.bus, options.dataDir)).register(this.router);
    // Off the start-up path: the daily copy of a large store takes seconds.
    void this.backups.scheduleStartupBackup(options.startupBackupDelayMs);
  }

  private registerAppRequests(): void {
    const { router, store, options } = this;
    router.handle('app.info', () => ({
      version: options.version,
      transport: options.transport,
      platform: process.platform,
      dataDir: options.dataDir,
      homeDir: homedir(),
      store: store.status,
    }));
    router.handle('app.resetStore', () => {
      if (store.status.ok) throw new Error('the store is healthy; nothing to reset');
      return store.reset();
    });
    router.handle('settings.get', ({ key }) => ({ value: store.getSetting(key) }));
    router.handle('settings.set', ({ key, value }) => {
      store.setSetting(key, value);
      return {};
    });
    router.handle('app.openExternal', async ({ url }) => ({ opened: options.openExternal ? await options.openExternal(url) : false }));
  }

  /** Registers a resource to be released when the app quits. */
  own<T extends Disposable>(d: T): T {
    return this.disposables.add(d);
  }

  dispose(): Promise<void> {
    return this.disposables.dispose();
  }
}
