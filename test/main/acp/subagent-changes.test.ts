import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore } from './helpers';

/** Changes per subagent (issue 42): a turn's changes told by the child whose tool calls made them, and reverted alone. */

let t: TestCore;
afterEach(async () => t?.dispose());

const SHARED = 'one\ntwo\nthree\nfour\nfive\n';

describe('changes per subagent', () => {
  it("says which child changed which file (a file both wrote is shared) and reverts one child's changes alone", async () => {
    t = await makeCore({ checkpoints: true });
    const folder = join(t.work, 'proj');
    mkdirSync(folder);
    writeFileSync(join(folder, 'shared.ts'), SHARED);
    const agentId = await t.addAgent();
    const session = await t.call('sessions.create', { agentId, cwd: folder });
    expect((await promptAndWait(t, session.id, 'subagents-write')).error).toBeNull();
    await t.core.checkpoints.idle();
    const [turn] = (await t.call('checkpoints.listTurns', { sessionId: session.id })).turns;
    expect(turn!.changes!.files.map((f) => f.path).sort()).toEqual(['a.ts', 'b.ts', 'parent.ts', 'shared.ts']);

    const { children } = await t.call('checkpoints.childChanges', { sessionId: session.id, turnId: turn!.id });
    const byTitle = Object.fromEntries(children.map((c) => [c.title, c]));
    // parent.ts is the parent's own: no child claims it.
    expect(byTitle['Test writer']!.files).toEqual([
      { path: 'a.ts', sharedWith: [] },
      { path: 'shared.ts', sharedWith: [{ childId: byTitle['Doc writer']!.childId, title: 'Doc writer' }] },
    ]);
    expect(byTitle['Doc writer']!.files).toEqual([
      { path: 'b.ts', sharedWith: [] },
      { path: 'shared.ts', sharedWith: [{ childId: byTitle['Test writer']!.childId, title: 'Test writer' }] },
    ]);

    // Revert the test writer's changes: its file goes, its line of the shared file comes back; the rest stays.
    const r = await t.call('checkpoints.revertChild', { sessionId: session.id, turnId: turn!.id, childId: byTitle['Test writer']!.childId });
    expect(r.refused).toEqual([]);
    expect(existsSync(join(folder, 'a.ts'))).toBe(false);
    expect(readFileSync(join(folder, 'shared.ts'), 'utf8')).toBe('one\ntwo\nthree\nfour\nFIVE by the doc writer\n');
    expect(readFileSync(join(folder, 'b.ts'), 'utf8')).toBe('export const b = 2;\n');
    expect(readFileSync(join(folder, 'parent.ts'), 'utf8')).toBe('export const parent = true;\n');
    // Each is a restore of its own, undoable as any revert.
    expect(r.reports.every((x) => x.restoreId !== null)).toBe(true);
  });
});
