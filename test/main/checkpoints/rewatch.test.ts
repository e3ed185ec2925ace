import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRig, type Rig } from './helpers';

let rig: Rig;
afterEach(async () => {
  vi.restoreAllMocks();
  await rig?.dispose();
});

/** What the service said about its whole-folder reads (it logs each, with why). */
function wholeReads(spy: { mock: { calls: unknown[][] } }): string[] {
  return spy.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('read the whole folder'));
}

describe('a folder watched again after its watch stopped', () => {
  it('session closed, then a new turn in the folder: the turn after it reads only what changed, and its changes are exact', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    rig = makeRig();
    const w = rig.work;
    for (let f = 0; f < 20; f++) writeFileSync(join(w, `f${f}.txt`), `content ${f}\n`);
    await rig.svc.sessionOpened('s1', [w]);
    await rig.svc.idle();
    await rig.turn(() => writeFileSync(join(w, 'f1.txt'), 'turn 1\n'));
    for (let round = 0; round < 8; round++) {
      rig.svc.sessionClosed('s1');
      writeFileSync(join(w, 'f2.txt'), `changed while closed ${round}\n`);
      // The folder is watched again from this turn on; its "before" reads the whole folder (the watch is new).
      await rig.turn(() => writeFileSync(join(w, 'f3.txt'), `cold turn ${round}\n`));
      const id = await rig.turn(() => writeFileSync(join(w, `warm${round}.txt`), `warm turn ${round}\n`));
      // Every other snapshot came from the new watch: none read the whole folder (none waited for its sync).
      expect(wholeReads(info).filter((m) => !m.endsWith('(first snapshot of the folder)'))).toEqual([]);
      const turn = (await rig.svc.listTurns('s1')).find((t) => t.promptId === id);
      expect(turn!.notice ?? null).toBeNull();
      expect(turn!.changes!.files.map((f) => f.path)).toEqual([`warm${round}.txt`]);
    }
  });
});
