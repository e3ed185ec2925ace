import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { headsFromFiles } from '../../../src/main/core/worktrees/ref-files';
import { branchHeads } from '../../../src/main/core/worktrees/repo-git';
import { tempDir } from '../../support/app-server';
import { makeFixture, sh, type Fixture } from './support';

const host = new LocalHost();
let f: Fixture;
beforeEach(() => {
  f = makeFixture();
});
afterEach(() => f.core.dispose());

const create = async (branch: string, base = 'main') => (await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base })).worktree;

/** The files' answer must be git's own (for-each-ref), for every name asked, present or not. */
async function sameAsGit(names: string[]): Promise<void> {
  const files = await headsFromFiles(host, f.repo, names);
  expect(files).not.toBeNull();
  expect(Object.fromEntries(files!)).toEqual(Object.fromEntries(await branchHeads(host, f.repo, names)));
}

describe("branch heads read from the repository's files", () => {
  it('say what git says: loose and packed refs, a name that only holds other branches, checkouts in linked worktrees and the main one', async () => {
    const a = await create('sb/one');
    await create('sb/two');
    sh(f.repo, 'branch', 'nested/deeper/name');
    writeFileSync(join(a.path, 'x.txt'), 'x\n');
    sh(a.path, 'add', 'x.txt');
    sh(a.path, 'commit', '-qm', 'x');
    const names = ['main', 'sb/one', 'sb/two', 'nested/deeper/name', 'nested', 'nested/deeper', 'no-such-branch', 'sb'];
    await sameAsGit(names);
    // Packed (as `git gc` leaves them), then one of them moved again (a loose ref over its packed one).
    sh(f.repo, 'pack-refs', '--all');
    await sameAsGit(names);
    writeFileSync(join(a.path, 'y.txt'), 'y\n');
    sh(a.path, 'add', 'y.txt');
    sh(a.path, 'commit', '-qm', 'y');
    await sameAsGit(names);
    // A worktree on a detached HEAD has no branch checked out; a branch deleted is gone from packed-refs too.
    sh(a.path, 'checkout', '-q', '--detach');
    sh(f.repo, 'branch', '-D', 'nested/deeper/name');
    await sameAsGit(names);
    // The main checkout on another branch: main is checked out nowhere.
    sh(f.repo, 'checkout', '-q', '-b', 'other');
    await sameAsGit([...names, 'other']);
  });

  it('give no answer (git is asked) where they cannot be sure', async () => {
    // A symbolic branch.
    sh(f.repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    expect(await headsFromFiles(host, f.repo, ['alias'])).toBeNull();
    // A linked worktree's folder is not a main checkout; a folder that is not a repository.
    const w = await create('sb/linked');
    expect(await headsFromFiles(host, w.path, ['main'])).toBeNull();
    const plain = tempDir('sb-plain-');
    expect(await headsFromFiles(host, plain, ['main'])).toBeNull();
    // A ref file that is not a commit id.
    mkdirSync(join(f.repo, '.git/refs/heads/odd'), { recursive: true });
    writeFileSync(join(f.repo, '.git/refs/heads/odd/ref'), 'not a sha\n');
    expect(await headsFromFiles(host, f.repo, ['odd/ref'])).toBeNull();
    // A name git could not hold.
    expect(await headsFromFiles(host, f.repo, ['../HEAD'])).toBeNull();
  });
});
