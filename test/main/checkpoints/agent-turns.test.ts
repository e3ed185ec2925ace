import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore } from '../acp/helpers';

let t: TestCore;
afterEach(async () => t?.dispose());

describe('checkpoints around the turns of a real agent subprocess', () => {
  it("shows a file the agent wrote through a shell in the turn's changes, and rewinds it", async () => {
    t = await makeCore({ checkpoints: true });
    writeFileSync(join(t.work, 'README.md'), '# project\n');
    const agentId = await t.addAgent();
    const session = await t.call('sessions.create', { agentId, cwd: t.work });
    const end = await promptAndWait(t, session.id, 'sh-write notes/todo.txt buy milk\\n');
    expect(end.error).toBeNull();
    await t.core.checkpoints.idle();

    const { turns } = await t.call('checkpoints.listTurns', { sessionId: session.id });
    expect(turns).toHaveLength(1);
    expect(turns[0]!.state).toBe('recorded');
    expect(turns[0]!.changes!.files).toMatchObject([{ path: 'notes/todo.txt', status: 'added', additions: 1 }]);
    const diff = await t.call('checkpoints.fileDiff', { from: turns[0]!.changes!.from, to: turns[0]!.changes!.to, path: 'notes/todo.txt' });
    expect(diff.newText).toBe('buy milk\n');

    const rewound = await t.call('checkpoints.rewind', { turnId: turns[0]!.id });
    expect(rewound.applied).toEqual([{ path: 'notes/todo.txt', action: 'removed' }]);
    const undone = await t.call('checkpoints.undoRestore', { restoreId: rewound.restoreId! });
    expect(undone.applied).toEqual([{ path: 'notes/todo.txt', action: 'written' }]);
  });
});
