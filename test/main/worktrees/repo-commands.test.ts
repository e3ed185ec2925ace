import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeftoverWorktree, WorktreeInfo, WorktreeStatus } from '../../../src/shared/contract/worktrees';
import { tempDir } from '../../support/app-server';
import { makeFixture, sh, type Fixture } from './support';

/**
 * A repository whose own configuration (what an agent working in it can write) names commands: each one, run,
 * leaves a marker file. Switchboard's own git calls must leave none.
 */
let f: Fixture;
let marks: string;
beforeEach(() => {
  f = makeFixture();
  marks = tempDir('sb-marks-');
});
afterEach(() => f.core.dispose());

/** An executable that leaves `marks/<name>` and passes its input through (a filter's work). */
function command(name: string, tail = 'cat'): string {
  const dir = join(marks, '..', `${marks.split('/').at(-1)}-bin`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ntouch "${join(marks, name)}"\n${tail}\n`);
  chmodSync(path, 0o755);
  return path;
}
const ran = () => readdirSync(marks).sort();

function plant(): void {
  const git = join(f.repo, '.git');
  sh(f.repo, 'config', 'core.fsmonitor', command('fsmonitor', 'exit 1'));
  sh(f.repo, 'config', 'filter.evil.clean', command('clean'));
  sh(f.repo, 'config', 'filter.evil.smudge', command('smudge'));
  sh(f.repo, 'config', 'filter.evil.required', 'true');
  sh(f.repo, 'config', 'filter.evilproc.process', command('process', 'exit 1'));
  sh(f.repo, 'config', 'merge.evil.driver', `${command('merge-driver', 'exit 0')} %O %A %B`);
  sh(f.repo, 'config', 'diff.evil.textconv', command('textconv'));
  sh(f.repo, 'config', 'diff.evil.command', command('diff-command', 'exit 0'));
  sh(f.repo, 'config', 'log.showSignature', 'true');
  sh(f.repo, 'config', 'gpg.program', command('gpg', 'exit 1'));
  sh(f.repo, 'config', 'core.pager', command('pager'));
  // An included file of the repository's is its configuration too.
  writeFileSync(join(git, 'more.config'), `[filter "inc"]\n\tclean = ${command('included-clean')}\n`);
  sh(f.repo, 'config', 'include.path', join(git, 'more.config'));
  mkdirSync(join(git, 'info'), { recursive: true });
  writeFileSync(join(git, 'info/attributes'), '* filter=evil merge=evil diff=evil\n*.ts filter=evilproc\n*.txt filter=inc merge=evil\n');
  for (const hook of ['post-index-change', 'reference-transaction', 'pre-auto-gc']) {
    writeFileSync(join(git, 'hooks', hook), `#!/bin/sh\ntouch "${join(marks, `hook-${hook}`)}"\n`);
    chmodSync(join(git, 'hooks', hook), 0o755);
  }
}

const create = async (branch: string) => (await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base: 'main' })).worktree;

describe("Switchboard's own git calls run no command the repository's configuration names", () => {
  it('creating a worktree runs no fsmonitor, filter or driver (its hooks may run: the user asked for it)', async () => {
    plant();
    const w = await create('sb/planted');
    expect(existsSync(join(w.path, 'src/app.ts'))).toBe(true);
    expect(ran().filter((m) => !m.startsWith('hook-'))).toEqual([]);
  });

  it('the worktree bar, the discard plan and the leftovers list run nothing of the repository', async () => {
    // Both sides change the same file: the trial merge has a file to hand to a merge driver.
    const w = await create('sb/work');
    writeFileSync(join(w.path, 'notes.txt'), 'branch\n');
    sh(w.path, 'add', 'notes.txt');
    sh(w.path, 'commit', '-qm', 'branch notes');
    writeFileSync(join(f.repo, 'notes.txt'), 'main\n');
    sh(f.repo, 'add', 'notes.txt');
    sh(f.repo, 'commit', '-qm', 'main notes');
    plant();
    // A tracked file whose time changed: git status must read it (through a clean filter, if one ran).
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(w.path, 'README.md'), future, future);
    utimesSync(join(w.path, 'src/app.ts'), future, future);
    utimesSync(join(w.path, 'notes.txt'), future, future);
    writeFileSync(join(w.path, 'new.txt'), 'untracked\n');

    const status = await f.ok<WorktreeStatus>('worktrees.status', { path: w.path });
    expect(status.files).toEqual([{ path: 'new.txt', code: '??' }]);
    const plan = await f.ok<{ unmerged: Array<{ subject: string }> }>('worktrees.discardPlan', { path: w.path });
    // The merge driver is not run: its file counts as a conflict, so the branch's commit is listed as not merged.
    expect(plan.unmerged.map((c) => c.subject)).toEqual(['branch notes']);
    const leftovers = (await f.call<{ leftovers: LeftoverWorktree[] }>('worktrees.leftovers', {})).leftovers;
    expect(leftovers.find((l) => l.branch === 'sb/work')).toMatchObject({ unmerged: [{ subject: 'branch notes' }], files: [{ path: 'new.txt', code: '??' }] });
    expect(ran()).toEqual([]);

    // Discarding (the user's step) runs no filter or driver either.
    await f.ok('worktrees.discard', { path: w.path, unmerged: plan.unmerged.map((c) => (c as unknown as { sha: string }).sha) });
    expect(ran().filter((m) => !m.startsWith('hook-'))).toEqual([]);
  });

  it('a driver under a name git cannot be told to skip stops the command, with the reason', async () => {
    const w = await create('sb/odd');
    sh(f.repo, 'config', 'filter.a=b.clean', command('odd-clean'));
    writeFileSync(join(f.repo, '.git/info/attributes'), '* filter=a=b\n');
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(w.path, 'README.md'), future, future);
    const error = await f.fails('worktrees.status', { path: w.path });
    expect(error).toMatchObject({ kind: 'git_failed' });
    expect(JSON.stringify(error)).toMatch(/filter\.a=b\.clean.*cannot be told to skip/);
    expect(ran()).toEqual([]);
    rmSync(join(f.repo, '.git/info/attributes'));
  });
});
