import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { makeFixture, sh, type Fixture } from './support';

let f: Fixture;
afterEach(async () => f?.core.dispose());

interface Turn {
  id: string;
  state: string;
  changes: { from: string; to: string; files: Array<{ path: string; status: string }> } | null;
}

describe('checkpoints in a worktree session', () => {
  it("record a turn's changes in the worktree and rewind them there, the main checkout untouched", async () => {
    f = makeFixture();
    const { worktree } = await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/notes', base: 'main' });
    const agentId = await f.addAgent();
    const session = await f.call<{ id: string }>('sessions.create', { agentId, cwd: worktree.path });
    const mainBefore = { head: sh(f.repo, 'rev-parse', 'HEAD'), status: sh(f.repo, 'status', '--porcelain'), app: readFileSync(join(f.repo, 'src/app.ts'), 'utf8') };
    const headBefore = sh(worktree.path, 'rev-parse', 'HEAD');

    // Two turns of a real agent subprocess: a new file, then a change to a tracked file (both through a shell).
    expect((await f.promptAndWait(session.id, 'sh-write notes/todo.txt buy milk\\n')).error).toBeNull();
    expect((await f.promptAndWait(session.id, 'sh-write src/app.ts export const greeting = "hi";\\n')).error).toBeNull();
    await f.core.checkpoints.idle();

    const { turns } = await f.call<{ turns: Turn[] }>('checkpoints.listTurns', { sessionId: session.id });
    expect(turns.map((t) => t.state)).toEqual(['recorded', 'recorded']);
    expect(turns[0]!.changes!.files).toMatchObject([{ path: 'notes/todo.txt', status: 'added' }]);
    expect(turns[1]!.changes!.files).toMatchObject([{ path: 'src/app.ts', status: 'modified' }]);
    const diff = await f.call<{ oldText: string; newText: string }>('checkpoints.fileDiff', { from: turns[1]!.changes!.from, to: turns[1]!.changes!.to, path: 'src/app.ts' });
    expect(diff).toMatchObject({ oldText: 'export const greeting = "hello";\nexport const count = 1;\n', newText: 'export const greeting = "hi";\n' });
    // The worktree's branch has the changes uncommitted; the main checkout knows nothing of them.
    expect(sh(worktree.path, 'status', '--porcelain', '--untracked-files=all')).toBe(' M src/app.ts\n?? notes/todo.txt\n');
    expect(existsSync(join(f.repo, 'notes/todo.txt'))).toBe(false);

    // Rewinding to before the first turn undoes both, in the worktree.
    const rewound = await f.call<{ applied: Array<{ path: string; action: string }>; restoreId: string | null }>('checkpoints.rewind', { turnId: turns[0]!.id });
    expect(rewound.applied).toEqual(expect.arrayContaining([{ path: 'notes/todo.txt', action: 'removed' }, { path: 'src/app.ts', action: 'written' }]));
    expect(rewound.applied).toHaveLength(2);
    expect(sh(worktree.path, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(readFileSync(join(worktree.path, 'src/app.ts'), 'utf8')).toBe(mainBefore.app);
    // Checkpoints never touch git's own state: the branch, its HEAD and the main checkout are as they were.
    expect(sh(worktree.path, 'rev-parse', 'HEAD')).toBe(headBefore);
    expect(sh(worktree.path, 'branch', '--show-current')).toBe('sb/notes\n');
    expect({ head: sh(f.repo, 'rev-parse', 'HEAD'), status: sh(f.repo, 'status', '--porcelain'), app: readFileSync(join(f.repo, 'src/app.ts'), 'utf8') }).toEqual(mainBefore);
    expect(sh(f.repo, 'stash', 'list')).toBe('');

    // And the rewind itself can be undone.
    await f.call('checkpoints.undoRestore', { restoreId: rewound.restoreId! });
    expect(readFileSync(join(worktree.path, 'notes/todo.txt'), 'utf8')).toBe('buy milk\n');
    expect(readFileSync(join(worktree.path, 'src/app.ts'), 'utf8')).toBe('export const greeting = "hi";\n');
    expect(existsSync(join(f.repo, 'notes/todo.txt'))).toBe(false);
  });
});
