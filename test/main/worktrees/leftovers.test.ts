import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeftoverWorktree, WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { makeFixture, sh, type Fixture } from './support';

let f: Fixture;
beforeEach(() => {
  f = makeFixture();
});
afterEach(() => f.core.dispose());

const create = async (branch: string) => (await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base: 'main' })).worktree;
const leftovers = async () => (await f.call<{ leftovers: LeftoverWorktree[] }>('worktrees.leftovers', {})).leftovers;
const byBranch = (list: LeftoverWorktree[], branch: string) => list.find((l) => l.branch === branch);
const remove = (l: LeftoverWorktree, unmerged: string[] = [], files: string[] = []) =>
  f.call<{ ok: boolean; error?: { kind: string; unmerged?: unknown[]; files?: unknown[] } }>('worktrees.removeLeftover', { repo: l.repo, path: l.path, branch: l.branch, unmerged, files });
const gitWorktrees = () => sh(f.repo, 'worktree', 'list', '--porcelain');
const hasBranch = (b: string) => sh(f.repo, 'branch', '--list', b).trim() !== '';

/** A run of the earlier compare mode: a worktree in the data folder on branch switchboard/compare-<id>-<n>, and its rows. */
function oldCompareRun(id: string, n: number): { path: string; branch: string } {
  const dir = join(f.core.options.dataDir, 'worktrees', id);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${n}-agent`);
  const branch = `switchboard/compare-${id}-${n}`;
  sh(f.repo, 'worktree', 'add', '-q', '-b', branch, path, 'main');
  const db = f.core.store.db;
  db.prepare("INSERT OR IGNORE INTO compares (id, repo, base_commit, prompt, created_at) VALUES (?, ?, ?, 'p', 0)").run(id, realpathSync(f.repo), sh(f.repo, 'rev-parse', 'main').trim());
  db.prepare("INSERT INTO compare_runs (id, compare_id, agent_id, worktree, branch, session_id, started_at) VALUES (?, ?, 'a', ?, ?, NULL, 0)").run(`${id}-${n}`, id, realpathSync(path), branch);
  return { path: realpathSync(path), branch };
}

describe('leftover worktrees (Settings → Worktrees)', () => {
  it("lists those Switchboard made that no open session uses, with what removing them loses, and removes each only as confirmed", async () => {
    const headBefore = sh(f.repo, 'rev-parse', 'HEAD').trim();
    // Earlier compare runs: one with a commit of its own, one with an uncommitted file, a branch whose folder is gone.
    const committed = oldCompareRun('c1', 1);
    writeFileSync(join(committed.path, 'agent.txt'), 'work\n');
    sh(committed.path, 'add', 'agent.txt');
    sh(committed.path, 'commit', '-qm', 'The agent’s work');
    const dirty = oldCompareRun('c1', 2);
    writeFileSync(join(dirty.path, 'notes.txt'), 'draft\n');
    sh(f.repo, 'branch', 'switchboard/compare-c0-1', 'main');
    // Worktree sessions: one whose session is open, one whose branch was merged.
    const busy = await create('sb/busy');
    const done = await create('sb/done');
    writeFileSync(join(done.path, 'done.txt'), 'done\n');
    await f.ok('worktrees.commit', { path: done.path, message: 'Done', files: ['done.txt'] });
    sh(f.repo, 'merge', '-q', '--ff-only', 'sb/done');
    const mainHead = sh(f.repo, 'rev-parse', 'HEAD').trim();
    const agentId = await f.addAgent();
    const session = await f.call<{ id: string }>('sessions.create', { agentId, cwd: busy.path });

    let list = await leftovers();
    expect(list.map((l) => l.branch).sort()).toEqual(['sb/done', 'switchboard/compare-c0-1', 'switchboard/compare-c1-1', 'switchboard/compare-c1-2']);
    expect(byBranch(list, 'switchboard/compare-c1-1')).toMatchObject({ path: committed.path, origin: 'old_compare', missing: false, files: [] });
    expect(byBranch(list, 'switchboard/compare-c1-1')!.unmerged.map((c) => c.subject)).toEqual(['The agent’s work']);
    expect(byBranch(list, 'switchboard/compare-c1-2')).toMatchObject({ path: dirty.path, unmerged: [], files: [{ path: 'notes.txt', code: '??' }] });
    expect(byBranch(list, 'switchboard/compare-c0-1')).toMatchObject({ path: null, unmerged: [], files: [] });
    expect(byBranch(list, 'sb/done')).toMatchObject({ path: done.path, origin: 'session', unmerged: [], files: [] });

    // Unconfirmed work is never removed: the commit, then the file, must have been shown.
    const c11 = byBranch(list, 'switchboard/compare-c1-1')!;
    const refused = await remove(c11);
    expect(refused).toMatchObject({ ok: false, error: { kind: 'changed_since_confirmation' } });
    expect(refused.error!.unmerged).toHaveLength(1);
    expect(gitWorktrees()).toContain(committed.path);
    expect(hasBranch(committed.branch)).toBe(true);
    expect(await remove(c11, c11.unmerged.map((c) => c.sha))).toEqual({ ok: true, value: {} });
    expect(gitWorktrees()).not.toContain(committed.path);
    expect(existsSync(committed.path)).toBe(false);
    expect(hasBranch(committed.branch)).toBe(false);

    const c12 = byBranch(list, 'switchboard/compare-c1-2')!;
    expect(await remove(c12)).toMatchObject({ ok: false, error: { kind: 'changed_since_confirmation', files: [{ path: 'notes.txt', code: '??' }] } });
    expect(existsSync(join(dirty.path, 'notes.txt'))).toBe(true);
    // A file made after the confirmation is not in it: refused again.
    writeFileSync(join(dirty.path, 'later.txt'), 'later\n');
    expect(await remove(c12, [], ['notes.txt'])).toMatchObject({ ok: false, error: { kind: 'changed_since_confirmation' } });
    expect(await remove(c12, [], ['notes.txt', 'later.txt'])).toEqual({ ok: true, value: {} });
    expect(existsSync(dirty.path)).toBe(false);

    expect(await remove(byBranch(list, 'switchboard/compare-c0-1')!)).toEqual({ ok: true, value: {} });
    expect(hasBranch('switchboard/compare-c0-1')).toBe(false);
    expect(await remove(byBranch(list, 'sb/done')!)).toEqual({ ok: true, value: {} });
    expect(existsSync(done.path)).toBe(false);
    expect(hasBranch('sb/done')).toBe(false);
    expect((await f.call<{ worktrees: Record<string, unknown> }>('worktrees.describe', { paths: [done.path] })).worktrees[done.path]).toBeNull();

    // Only what the list holds can be removed: not the open session's worktree, not the main checkout.
    expect(await remove({ repo: realpathSync(f.repo), path: busy.path, branch: 'sb/busy', origin: 'session', missing: false, unmerged: [], files: [] })).toMatchObject({
      ok: false,
      error: { kind: 'unknown_worktree' },
    });
    expect(await remove({ repo: realpathSync(f.repo), path: realpathSync(f.repo), branch: 'main', origin: 'session', missing: false, unmerged: [], files: [] })).toMatchObject({
      ok: false,
      error: { kind: 'unknown_worktree' },
    });
    expect(existsSync(busy.path)).toBe(true);

    // Its session closed, the busy one is a leftover too; the main checkout was never touched.
    await f.call('sessions.close', { sessionId: session.id });
    list = await leftovers();
    expect(list.map((l) => l.branch)).toEqual(['sb/busy']);
    expect(sh(f.repo, 'rev-parse', 'HEAD').trim()).toBe(mainHead);
    expect(mainHead).not.toBe(headBefore);
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
  }, 60_000);
});

describe('a leftover that cannot be read', () => {
  it('is listed with its reason, and the others as usual', async () => {
    const broken = await create('sb/broken');
    const fine = await create('sb/fine');
    writeFileSync(join(fine.path, 'notes.txt'), 'draft\n');
    // Its folder is no longer a repository: the .git file that tied it to the repository is gone.
    rmSync(join(broken.path, '.git'));
    const list = await leftovers();
    expect(byBranch(list, 'sb/fine')).toMatchObject({ files: [{ path: 'notes.txt', code: '??' }] });
    expect(byBranch(list, 'sb/fine')!.problem).toBeUndefined();
    expect(byBranch(list, 'sb/broken')).toMatchObject({ path: broken.path, problem: expect.stringMatching(/its folder: .*not a git repository/i) });
    // Nothing is removed on a confirmation that could not say what it loses.
    const refused = await remove(byBranch(list, 'sb/broken')!);
    expect(refused).toMatchObject({ ok: false, error: { kind: 'git_failed' } });
    expect(existsSync(broken.path)).toBe(true);
  });
});
