import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointService } from '../../../src/main/core/checkpoints/checkpoint-service';
import { makeRig, type Rig } from './helpers';

let rig: Rig;
afterEach(async () => rig?.dispose());

describe('a turn cut by a restart of Switchboard', () => {
  it('is marked as cut after the restart, not shown as still recording', async () => {
    rig = makeRig();
    writeFileSync(join(rig.work, 'a.txt'), 'before\n');
    // A turn that starts and never ends: Switchboard is killed during it.
    const t = { sessionId: 's1', promptId: randomUUID(), roots: [rig.work] };
    await rig.svc.turnStarting(t);
    await rig.svc.idle();
    expect((await rig.svc.listTurns('s1'))[0]?.state).toBe('running');

    // Switchboard again, on the same store.
    const again = new CheckpointService(rig.store, rig.bus, rig.dataDir, { autoPrune: false, settings: rig.settings, host: new LocalHost() });
    try {
      const [turn] = await again.listTurns('s1');
      expect(turn?.state).toBe('failed');
      expect(turn?.error).toMatch(/Switchboard stopped during this turn/);
    } finally {
      await again.dispose();
    }
  });
});
