import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../../src/main/core/base/event-bus';
import { CheckpointService } from '../../../src/main/core/checkpoints/checkpoint-service';
import { SettingsService } from '../../../src/main/core/settings/settings-service';
import type { Host } from '../../../src/main/core/host/host';
import { StoreService } from '../../../src/main/core/store/store-service';

export interface Rig {
  root: string;
  dataDir: string;
  work: string;
  store: StoreService;
  bus: EventBus;
  /** The settings the service reads (checkpoints.* keys). */
  settings: SettingsService;
  svc: CheckpointService;
  /** Runs `body` as a turn of `sessionId` in `work` (before/after checkpoints), and waits for the "after" one. */
  turn(body: () => void | Promise<void>, sessionId?: string): Promise<string>;
  dispose(): Promise<void>;
}

export function makeRig(options: { pathEnv?: string; beforeWaitMs?: number; fullReadWaitMs?: number; host?: Host } = {}): Rig {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cp-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  const store = new StoreService(dataDir);
  const bus = new EventBus();
  const settings = new SettingsService(store, bus);
  const svc = new CheckpointService(store, bus, dataDir, { autoPrune: false, settings, host: new LocalHost(), ...options });
  const rig: Rig = {
    root,
    dataDir,
    work,
    store,
    bus,
    settings,
    svc,
    async turn(body, sessionId = 's1') {
      const t = { sessionId, promptId: randomUUID(), roots: [work] };
      await rig.svc.turnStarting(t);
      await body();
      rig.svc.turnEnded(t);
      await rig.svc.idle();
      return t.promptId;
    },
    async dispose() {
      await rig.svc.dispose();
      rig.store.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return rig;
}
