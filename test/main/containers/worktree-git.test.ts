/**
 * Which folder a worktree session's container gets read-only for git: the main repository's git folder of a
 * real linked worktree, and nothing a repository's own `.git` file names otherwise (a hostile `.git` file
 * cannot get a folder of this machine mounted).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { worktreeCommonDir } from '../../../src/main/core/containers/worktree-git';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { initRepo } from '../../support/git-repo';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-wtgit-')));
const host = new LocalHost();
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the git folder mounted read-only for a worktree in a container', () => {
  it("is the main repository's for a linked worktree; none for a plain checkout", async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    initRepo(repo);
    execFileSync('git', ['worktree', 'add', '-q', '-b', 'side', join(root, 'wt')], { cwd: repo });
    expect(await worktreeCommonDir(host, join(root, 'wt'))).toBe(join(repo, '.git'));
    expect(await worktreeCommonDir(host, repo)).toBeNull();
  });

  it('is none when the .git file names a folder that does not name the worktree back', async () => {
    const secrets = join(root, 'home');
    mkdirSync(join(secrets, '.ssh', 'worktrees', 'x'), { recursive: true });
    writeFileSync(join(secrets, '.ssh', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(secrets, '.ssh', 'id_secret'), 'key');
    for (const [name, target, back] of [
      ['hostile', join(secrets, '.ssh', 'worktrees', 'x'), null],
      ['other-back', join(secrets, '.ssh', 'worktrees', 'x'), '/elsewhere/.git'],
      ['root', '/worktrees/x', null],
      ['relative', '../home/.ssh/worktrees/x', null],
    ] as const) {
      const wt = join(root, name);
      mkdirSync(wt);
      writeFileSync(join(wt, '.git'), `gitdir: ${target}\n`);
      if (back) writeFileSync(join(secrets, '.ssh', 'worktrees', 'x', 'gitdir'), `${back}\n`);
      expect(await worktreeCommonDir(host, wt), name).toBeNull();
    }
  });
});
