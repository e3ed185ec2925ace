import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { makeFixture, sh, type Fixture } from './support';

let f: Fixture;
beforeEach(() => {
  f = makeFixture();
});
afterEach(() => f.core.dispose());

const create = async (branch: string, base = 'main') => (await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base })).worktree;
async function commitIn(w: WorktreeInfo, file: string): Promise<string> {
  writeFileSync(join(w.path, file), `${file}\n`);
  await f.ok('worktrees.commit', { path: w.path, message: `Add ${file}`, files: [file] });
  return sh(w.path, 'rev-parse', 'HEAD').trim();
}
const parents = (cwd: string, rev: string) => sh(cwd, 'log', '-1', '--format=%P', rev).trim().split(' ');

describe('a merge commit into the base checkout', () => {
  it('merges the commits it checked, says when there is nothing to merge, and works on packed refs', async () => {
    const a = await create('sb/a');
    const aSha = await commitIn(a, 'a.txt');
    const before = sh(f.repo, 'rev-parse', 'main').trim();
    const merged = await f.ok<{ head: string }>('worktrees.merge', { path: a.path, strategy: 'merge' });
    expect(merged.head).toBe(sh(f.repo, 'rev-parse', 'HEAD').trim());
    expect(parents(f.repo, 'HEAD')).toEqual([before, aSha]);
    // Merged already: git merge finds nothing to merge, and nothing changes.
    expect(await f.fails('worktrees.merge', { path: a.path, strategy: 'merge' })).toEqual({ kind: 'nothing_to_merge', base: 'main', branch: 'sb/a' });
    expect(sh(f.repo, 'rev-parse', 'HEAD').trim()).toBe(merged.head);
    expect(existsSync(join(f.repo, '.git/MERGE_HEAD'))).toBe(false);

    // All refs packed (as git gc leaves them): read from packed-refs, and the new head from the ref git wrote.
    const b = await create('sb/b');
    const bSha = await commitIn(b, 'b.txt');
    sh(f.repo, 'pack-refs', '--all');
    const again = await f.ok<{ head: string }>('worktrees.merge', { path: b.path, strategy: 'merge' });
    expect(again.head).toBe(sh(f.repo, 'rev-parse', 'main').trim());
    expect(parents(f.repo, 'main')).toEqual([merged.head, bSha]);
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
  });

  it('merges in the linked worktree where the base is checked out, leaving the main checkout on its own branch untouched', async () => {
    const c = await create('sb/c');
    const cSha = await commitIn(c, 'c.txt');
    sh(f.repo, 'checkout', '-q', '-b', 'elsewhere');
    const mainTree = join(realpathSync(dirname(f.repo)), 'main-tree');
    sh(f.repo, 'worktree', 'add', '-q', mainTree, 'main');
    const before = sh(f.repo, 'rev-parse', 'main').trim();
    const merged = await f.ok<{ head: string }>('worktrees.merge', { path: c.path, strategy: 'merge' });
    expect(merged.head).toBe(sh(mainTree, 'rev-parse', 'HEAD').trim());
    expect(parents(mainTree, 'HEAD')).toEqual([before, cSha]);
    expect(readFileSync(join(mainTree, 'c.txt'), 'utf8')).toBe('c.txt\n');
    expect(existsSync(join(f.repo, 'c.txt'))).toBe(false);
    expect(sh(f.repo, 'branch', '--show-current').trim()).toBe('elsewhere');
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
  });
});

describe('the discard plan after a squash merge', () => {
  it('counts the squashed commits as merged, though the base has moved on in the same lines since', async () => {
    const w = await create('sb/squashed');
    await commitIn(w, 'a.txt');
    writeFileSync(join(w.path, 'src/app.ts'), 'export const greeting = "hi";\nexport const count = 1;\n');
    await f.ok('worktrees.commit', { path: w.path, message: 'Greet shortly', files: ['src/app.ts'] });
    await f.ok('worktrees.merge', { path: w.path, strategy: 'squash' });
    expect((await f.ok<{ unmerged: unknown[] }>('worktrees.discardPlan', { path: w.path })).unmerged).toEqual([]);
    // The base goes on: the same line changed again (merging the branch now would conflict).
    writeFileSync(join(f.repo, 'src/app.ts'), 'export const greeting = "hello there";\nexport const count = 1;\n');
    sh(f.repo, 'commit', '-qam', 'Greet at length');
    expect((await f.ok<{ unmerged: unknown[] }>('worktrees.discardPlan', { path: w.path })).unmerged).toEqual([]);
    // Work after the squash is still counted as not merged.
    await commitIn(w, 'b.txt');
    expect((await f.ok<{ unmerged: Array<{ subject: string }> }>('worktrees.discardPlan', { path: w.path })).unmerged.map((c) => c.subject)).toContain('Add b.txt');
  });
});
