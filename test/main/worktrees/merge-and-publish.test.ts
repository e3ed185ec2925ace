import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RepoBranches, WorktreeInfo, WorktreeStatus } from '../../../src/shared/contract/worktrees';
import { makeFixture, sh, type Fixture } from './support';

let f: Fixture;
beforeEach(() => {
  f = makeFixture();
});
afterEach(() => f.core.dispose());

const create = async (branch: string, base = 'main') => (await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base })).worktree;
const app = (wt: string) => join(wt, 'src/app.ts');

describe('worktree sessions: create, merge, conflict', () => {
  it('puts each session on its own branch beside the repository; the first merges, the second conflicts and leaves the main checkout as it was', async () => {
    const a = await create('sb/friendlier-greeting');
    const b = await create('sb/shout');
    expect(a.path).toBe(join(realpathSync(dirname(f.repo)), 'project.worktrees', 'sb-friendlier-greeting'));
    expect(a.base).toBe('main');
    expect(sh(a.path, 'branch', '--show-current').trim()).toBe('sb/friendlier-greeting');

    const listed = await f.ok<RepoBranches>('worktrees.list', { repo: join(f.repo, 'src') });
    expect(listed.repo).toBe(realpathSync(f.repo));
    expect(listed.worktrees.filter((w) => w.managed).map((w) => w.branch).sort()).toEqual(['sb/friendlier-greeting', 'sb/shout']);

    // Two agents edit the same line of the same file, each in its own worktree; the main checkout sees neither.
    writeFileSync(app(a.path), 'export const greeting = "hello, friend";\nexport const count = 1;\n');
    writeFileSync(app(b.path), 'export const greeting = "HELLO";\nexport const count = 1;\n');
    expect(readFileSync(app(f.repo), 'utf8')).toContain('"hello"');

    const status = await f.ok<WorktreeStatus>('worktrees.status', { path: a.path });
    expect(status.files).toEqual([{ path: 'src/app.ts', code: ' M' }]);
    expect([status.ahead, status.behind]).toEqual([0, 0]);

    await f.ok('worktrees.commit', { path: a.path, message: 'Friendlier greeting', files: ['src/app.ts'] });
    await f.ok('worktrees.commit', { path: b.path, message: 'Shout', files: ['src/app.ts'] });
    expect((await f.ok<WorktreeStatus>('worktrees.status', { path: a.path })).ahead).toBe(1);

    const merged = await f.ok<{ head: string }>('worktrees.merge', { path: a.path, strategy: 'merge' });
    expect(sh(f.repo, 'rev-parse', 'HEAD').trim()).toBe(merged.head);
    expect(readFileSync(app(f.repo), 'utf8')).toContain('hello, friend');
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');

    const headBefore = sh(f.repo, 'rev-parse', 'HEAD').trim();
    const conflict = await f.fails('worktrees.merge', { path: b.path, strategy: 'merge' });
    expect(conflict).toEqual({ kind: 'conflict', files: ['src/app.ts'], base: 'main', branch: 'sb/shout' });
    // Refused before anything was touched: same HEAD, clean tree, no merge in progress.
    expect(sh(f.repo, 'rev-parse', 'HEAD').trim()).toBe(headBefore);
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(f.repo, '.git/MERGE_HEAD'))).toBe(false);
    for (const strategy of ['squash', 'rebase', 'ff'] as const) {
      const refused = await f.fails('worktrees.merge', { path: b.path, strategy });
      expect(refused.kind).toBe(strategy === 'ff' ? 'not_fast_forward' : 'conflict');
      expect(sh(f.repo, 'rev-parse', 'HEAD').trim()).toBe(headBefore);
      expect(sh(f.repo, 'status', '--porcelain')).toBe('');
    }
    // The rebase attempt was undone in the session's worktree too.
    expect(sh(b.path, 'status', '--porcelain')).toBe('');
    expect(readFileSync(app(b.path), 'utf8')).toContain('HELLO');

    // "Resolve these conflicts": what an agent does in its worktree (merge the base in, settle the line, commit).
    expect(() => sh(b.path, 'merge', 'main')).toThrow();
    writeFileSync(app(b.path), 'export const greeting = "HELLO, FRIEND";\nexport const count = 1;\n');
    sh(b.path, 'add', 'src/app.ts');
    sh(b.path, 'commit', '-qm', 'Resolve');
    await f.ok('worktrees.merge', { path: b.path, strategy: 'ff' });
    expect(readFileSync(app(f.repo), 'utf8')).toContain('HELLO, FRIEND');
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses the merge when uncommitted changes in the main checkout are in the way, touching nothing', async () => {
    const a = await create('sb/count');
    writeFileSync(app(a.path), 'export const greeting = "hello";\nexport const count = 2;\n');
    await f.ok('worktrees.commit', { path: a.path, message: 'Count two', files: ['src/app.ts'] });
    writeFileSync(app(f.repo), 'export const greeting = "hello";\nexport const count = 99; // mine\n');
    const head = sh(f.repo, 'rev-parse', 'HEAD').trim();
    const refused = await f.fails('worktrees.merge', { path: a.path, strategy: 'ff' });
    expect(refused).toEqual({ kind: 'dirty', path: realpathSync(f.repo), files: ['src/app.ts'] });
    expect(readFileSync(app(f.repo), 'utf8')).toContain('99; // mine');
    expect(sh(f.repo, 'rev-parse', 'HEAD').trim()).toBe(head);
  });

  it('refuses a worktree outside the worktrees folder, a bad branch name, an existing branch', async () => {
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/x', base: 'main', path: join(f.root, 'elsewhere') })).toMatchObject({ kind: 'outside_folder' });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/x', base: 'main', path: join(f.root, 'project.worktrees/../escape') })).toMatchObject({
      kind: 'outside_folder',
    });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/x', base: 'main', path: join(f.repo, 'inside') })).toMatchObject({ kind: 'outside_folder' });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'main', base: 'main' })).toEqual({ kind: 'branch_exists', branch: 'main' });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/x', base: 'nope' })).toEqual({ kind: 'no_base', base: 'nope' });
    // A name that is only the folder of other branches (release/1.0) is no branch, as base or as the new branch's name.
    sh(f.repo, 'branch', 'release/1.0');
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/x', base: 'release' })).toEqual({ kind: 'no_base', base: 'release' });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'release', base: 'main' })).toMatchObject({ kind: 'git_failed', command: 'git worktree add' });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.root, branch: 'sb/x', base: 'main' })).toMatchObject({ kind: 'not_a_repo', path: f.root });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: join(f.root, 'missing'), branch: 'sb/x', base: 'main' })).toMatchObject({ kind: 'not_a_repo' });
    const bad = await f.core.router.invoke('worktrees.create', { kind: 'new', repo: f.repo, branch: 'a..b', base: 'main' });
    expect(bad.ok).toBe(false);
    // The worktrees folder set inside the repository is refused too.
    f.core.settings.set({ key: 'worktrees.folder', value: join(f.repo, 'trees') });
    expect(await f.fails('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/x', base: 'main' })).toMatchObject({ kind: 'outside_folder' });
    expect(existsSync(join(f.repo, 'trees'))).toBe(false);
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
  });

  it('shows a hook that refused a commit, with its output', async () => {
    const a = await create('sb/hooked');
    const hook = join(f.repo, '.git/hooks/pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho "lint: 3 problems in src/app.ts" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    writeFileSync(app(a.path), 'export const greeting = 1;\n');
    const refused = await f.fails('worktrees.commit', { path: a.path, message: 'Try', files: ['src/app.ts'] });
    expect(refused).toMatchObject({ kind: 'git_failed', command: 'git commit', hook: 'pre-commit' });
    expect(refused.kind === 'git_failed' && refused.output).toContain('lint: 3 problems');
  });
});

describe('worktree sessions: commit, squash, push, discard', () => {
  it('commits only the chosen files, squash-merges, and pushes the branch to the remote', async () => {
    const a = await create('sb/docs');
    writeFileSync(join(a.path, 'README.md'), '# demo\n\nDocs.\n');
    writeFileSync(join(a.path, 'notes.txt'), 'scratch\n');
    writeFileSync(join(a.path, 'src/new file.ts'), 'export {};\n');
    const c1 = await f.ok<{ commit: { sha: string; subject: string } }>('worktrees.commit', { path: a.path, message: 'Docs\n\nmore', files: ['README.md', 'src/new file.ts'] });
    expect(c1.commit.subject).toBe('Docs');
    expect(sh(a.path, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['README.md', 'src/new file.ts']);
    expect((await f.ok<WorktreeStatus>('worktrees.status', { path: a.path })).files).toEqual([{ path: 'notes.txt', code: '??' }]);
    expect(await f.fails('worktrees.commit', { path: a.path, message: 'again', files: ['README.md'] })).toEqual({ kind: 'nothing_to_commit' });
    writeFileSync(join(a.path, 'README.md'), '# demo\n\nDocs, better.\n');
    await f.ok('worktrees.commit', { path: a.path, message: 'Better docs', files: ['README.md'] });

    const merged = await f.ok<{ head: string }>('worktrees.merge', { path: a.path, strategy: 'squash' });
    expect(sh(f.repo, 'log', '--format=%P', '-1').trim().split(' ')).toHaveLength(1);
    expect(sh(f.repo, 'log', '--format=%B', '-1')).toContain('* Better docs');
    expect(sh(f.repo, 'rev-parse', 'HEAD').trim()).toBe(merged.head);
    expect(readFileSync(join(f.repo, 'README.md'), 'utf8')).toContain('Docs, better.');
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');

    // Squashed into main: its commits are not main's, but discarding the branch would lose nothing.
    expect((await f.ok<{ unmerged: unknown[] }>('worktrees.discardPlan', { path: a.path })).unmerged).toEqual([]);

    const pushed = await f.ok<{ remote: string; compareUrl: string | null }>('worktrees.push', { path: a.path });
    expect(pushed).toMatchObject({ remote: 'origin', compareUrl: null });
    expect(sh(f.origin, 'log', '--format=%s', 'sb/docs')).toBe('Better docs\nDocs\ninit\n');
    const status = await f.ok<WorktreeStatus>('worktrees.status', { path: a.path });
    expect(status.upstream).toEqual({ name: 'origin/sb/docs', ahead: 0, behind: 0 });
  });

  it('never force-pushes: a branch rewritten after its push is refused by the remote', async () => {
    const a = await create('sb/rewrite');
    writeFileSync(join(a.path, 'a.txt'), '1\n');
    await f.ok('worktrees.commit', { path: a.path, message: 'one', files: ['a.txt'] });
    await f.ok('worktrees.push', { path: a.path });
    sh(a.path, 'commit', '-q', '--amend', '-m', 'one, rewritten');
    const refused = await f.fails('worktrees.push', { path: a.path });
    expect(refused.kind).toBe('push_rejected');
    expect(sh(f.origin, 'log', '--format=%s', 'sb/rewrite')).toBe('one\ninit\n');
  });

  it('lists unmerged commits before a discard, refuses a stale confirmation, then removes the worktree and its branch', async () => {
    const a = await create('sb/throwaway');
    writeFileSync(join(a.path, 'a.txt'), '1\n');
    const c1 = await f.ok<{ commit: { sha: string } }>('worktrees.commit', { path: a.path, message: 'First try', files: ['a.txt'] });
    writeFileSync(join(a.path, 'b.txt'), 'wip\n');
    const plan = await f.ok<{ unmerged: Array<{ sha: string; subject: string }>; files: unknown[] }>('worktrees.discardPlan', { path: a.path });
    expect(plan.unmerged).toEqual([{ sha: c1.commit.sha, subject: 'First try' }]);
    expect(plan.files).toEqual([{ path: 'b.txt', code: '??' }]);

    // A commit made after the confirmation was shown: confirm again.
    writeFileSync(join(a.path, 'c.txt'), '2\n');
    await f.ok('worktrees.commit', { path: a.path, message: 'Second try', files: ['c.txt'] });
    const stale = await f.fails('worktrees.discard', { path: a.path, unmerged: plan.unmerged.map((c) => c.sha) });
    expect(stale.kind).toBe('changed_since_confirmation');
    expect(existsSync(a.path)).toBe(true);

    const again = await f.ok<{ unmerged: Array<{ sha: string }> }>('worktrees.discardPlan', { path: a.path });
    expect(again.unmerged).toHaveLength(2);
    await f.ok('worktrees.discard', { path: a.path, unmerged: again.unmerged.map((c) => c.sha) });
    expect(existsSync(a.path)).toBe(false);
    expect(sh(f.repo, 'branch', '--list', 'sb/throwaway')).toBe('');
    expect(await f.fails('worktrees.status', { path: a.path })).toEqual({ kind: 'unknown_worktree', path: a.path });
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
  });

  it('takes an existing worktree as a session place, with the main checkout’s branch as its base', async () => {
    const path = join(f.root, 'project.worktrees', 'mine');
    sh(f.repo, 'worktree', 'add', '-q', '-b', 'feature/mine', path);
    const got = await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'existing', path });
    expect(got.worktree).toMatchObject({ branch: 'feature/mine', base: 'main', repo: realpathSync(f.repo) });
    const described = await f.call<{ worktrees: Record<string, WorktreeInfo | null> }>('worktrees.describe', { paths: [got.worktree.path, f.repo] });
    expect(described.worktrees[got.worktree.path]?.branch).toBe('feature/mine');
    expect(described.worktrees[f.repo]).toBeNull();
    expect(await f.fails('worktrees.create', { kind: 'existing', path: f.repo })).toMatchObject({ kind: 'not_a_repo' });
  });
});
