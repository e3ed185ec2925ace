import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRig, type Rig } from './helpers';

const read = (p: string) => readFileSync(p, 'utf8');

let rig: Rig;
afterEach(async () => rig?.dispose());

const SIX = 'l1\nl2\nl3\nl4\nl5\nl6\n';

/** The session's review ("everything this session changed, up to now"), as the Files panel reads it. */
async function sessionReview(): Promise<{ from: string; to: string; editedSince: string[] }> {
  const [f] = (await rig.svc.sessionChanges('s1')).folders;
  return { from: f!.changes.from, to: f!.changes.to, editedSince: f!.editedSince };
}

describe("a revert or a rewind never silently loses the user's later edits", () => {
  it("Revert file in the session's review undoes the agent's change and keeps the line the user wrote after it", async () => {
    rig = makeRig();
    const a = join(rig.work, 'a.txt');
    writeFileSync(a, SIX);
    await rig.turn(() => writeFileSync(a, SIX.replace('l1', 'l1 by agent')));
    writeFileSync(a, SIX.replace('l1', 'l1 by agent').replace('l6', 'l6 by user'));
    const review = await sessionReview();
    expect(review.editedSince).toEqual(['a.txt']);

    const r = await rig.svc.revert(review.from, review.to, { kind: 'file', path: 'a.txt' });
    expect(read(a)).toBe(SIX.replace('l6', 'l6 by user'));
    expect(r.applied).toEqual([{ path: 'a.txt', action: 'merged' }]);
  });

  it('a rewind after the review was looked at keeps the user edits made since the turn', async () => {
    rig = makeRig();
    const a = join(rig.work, 'a.txt');
    writeFileSync(a, SIX);
    await rig.turn(() => writeFileSync(a, SIX.replace('l1', 'l1 by agent')));
    writeFileSync(a, SIX.replace('l1', 'l1 by agent').replace('l6', 'l6 by user'));
    writeFileSync(join(rig.work, 'notes.txt'), 'mine\n');
    await sessionReview(); // the review snapshots the folder as it is now
    // Another restore in between also snapshots the user's edit.
    await rig.svc.revert((await rig.svc.listTurns('s1'))[0]!.changes!.from, (await rig.svc.listTurns('s1'))[0]!.changes!.to, { kind: 'hunk', path: 'a.txt', hunk: 0 });
    await rig.turn(() => writeFileSync(a, SIX.replace('l1', 'l1 again').replace('l6', 'l6 by user')));

    const first = (await rig.svc.listTurns('s1'))[0]!;
    await rig.svc.rewind(first.id);
    expect(read(a)).toBe(SIX.replace('l6', 'l6 by user'));
    expect(read(join(rig.work, 'notes.txt'))).toBe('mine\n');
  });

  it('keeps the edits the user made between two turns when the session is reverted as a whole', async () => {
    rig = makeRig();
    const a = join(rig.work, 'a.txt');
    writeFileSync(a, SIX);
    await rig.turn(() => writeFileSync(a, SIX.replace('l1', 'l1 by agent')));
    writeFileSync(a, SIX.replace('l1', 'l1 by agent').replace('l4', 'l4 by user'));
    await rig.turn(() => writeFileSync(a, SIX.replace('l1', 'l1 by agent').replace('l4', 'l4 by user').replace('l6', 'l6 by agent')));
    const review = await sessionReview();
    const r = await rig.svc.revert(review.from, review.to, { kind: 'all' });
    expect(r.refused).toEqual([]);
    expect(read(a)).toBe(SIX.replace('l4', 'l4 by user'));
  });

  it('asks, with the lines that would be lost, when the user rewrote the lines the turn wrote; putting it back anyway is a choice that can be undone', async () => {
    rig = makeRig();
    const a = join(rig.work, 'a.txt');
    writeFileSync(a, SIX);
    await rig.turn(() => writeFileSync(a, SIX.replace('l2', 'l2 by agent')));
    const { from, to } = (await rig.svc.listTurns('s1'))[0]!.changes!;
    // A later turn, then the user's own edit on the same line.
    await rig.turn(() => writeFileSync(a, SIX.replace('l2', 'l2 by agent').replace('l5', 'l5 by agent')));
    const mine = SIX.replace('l2', 'l2 by agent, then the user').replace('l5', 'l5 by agent');
    writeFileSync(a, mine);

    // Reverting the first turn alone would also lose what the later turn wrote; the whole session's, only the user's line.
    const review = await sessionReview();
    const asks = [
      { run: () => rig.svc.revert(from, to, { kind: 'file', path: 'a.txt' }), lost: ['l2 by agent, then the user', 'l5 by agent'] },
      { run: () => rig.svc.revert(review.from, review.to, { kind: 'file', path: 'a.txt' }), lost: ['l2 by agent, then the user'] },
    ];
    for (const ask of asks) {
      const r = await ask.run();
      expect(r.applied).toEqual([]);
      expect(r.refused).toEqual([{ path: 'a.txt', reason: expect.stringMatching(/changed again since/), choice: { lines: ask.lost, more: 0 } }]);
      expect(read(a)).toBe(mine);
    }

    const forced = await rig.svc.revert(from, to, { kind: 'file', path: 'a.txt' }, ['a.txt']);
    expect(forced.applied).toEqual([{ path: 'a.txt', action: 'written' }]);
    expect(read(a)).toBe(SIX);
    await rig.svc.undoRestore(forced.restoreId!);
    expect(read(a)).toBe(mine);

    const rewind = await rig.svc.rewind((await rig.svc.listTurns('s1'))[0]!.id);
    expect(rewind.refused).toEqual([{ path: 'a.txt', reason: expect.any(String), choice: { lines: ['l2 by agent, then the user'], more: 0 } }]);
    expect(read(a)).toBe(mine);
  });

  it('asks before putting back a binary file, a file the user deleted, or one the user renamed and edited', async () => {
    rig = makeRig();
    const w = rig.work;
    writeFileSync(join(w, 'img.bin'), Buffer.from([0, 1, 2, 3]));
    writeFileSync(join(w, 'gone.txt'), SIX);
    writeFileSync(join(w, 'old.txt'), SIX);
    await rig.turn(() => {
      writeFileSync(join(w, 'img.bin'), Buffer.from([0, 9, 9, 9]));
      writeFileSync(join(w, 'gone.txt'), SIX.replace('l1', 'agent'));
      writeFileSync(join(w, 'old.txt'), SIX.replace('l1', 'agent'));
    });
    writeFileSync(join(w, 'img.bin'), Buffer.from([0, 7, 7, 7]));
    rmSync(join(w, 'gone.txt'));
    renameSync(join(w, 'old.txt'), join(w, 'new.txt'));
    writeFileSync(join(w, 'new.txt'), SIX.replace('l1', 'agent').replace('l3', 'l3 by user'));

    const review = await sessionReview();
    const r = await rig.svc.revert(review.from, review.to, { kind: 'all' });
    expect(r.applied).toEqual([]);
    const asked = Object.fromEntries(r.refused.map((x) => [x.path, x.choice]));
    expect(asked).toEqual({
      'img.bin': { lines: [], more: 0 },
      'gone.txt': { lines: [], more: 0 },
      'old.txt': { lines: [], more: 0 },
      // Putting the folder back removes the renamed file: every line of it would go.
      'new.txt': { lines: ['agent', 'l2', 'l3 by user', 'l4', 'l5', 'l6'], more: 0 },
    });
    expect([...readFileSync(join(w, 'img.bin'))]).toEqual([0, 7, 7, 7]);
    expect(existsSync(join(w, 'gone.txt'))).toBe(false);
    expect(read(join(w, 'new.txt'))).toBe(SIX.replace('l1', 'agent').replace('l3', 'l3 by user'));

    const forced = await rig.svc.revert(review.from, review.to, { kind: 'file', path: 'img.bin' }, ['img.bin']);
    expect(forced.applied).toEqual([{ path: 'img.bin', action: 'written' }]);
    expect([...readFileSync(join(w, 'img.bin'))]).toEqual([0, 1, 2, 3]);
  });
});
