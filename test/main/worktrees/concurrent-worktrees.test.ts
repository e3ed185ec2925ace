import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GitOptions, GitResult } from '../../../src/main/core/host/host';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { addWorktree, pruneWorktrees, removeWorktree } from '../../../src/main/core/worktrees/worktree-git';
import { tempDir } from '../../support/app-server';
import { sh } from './support';

/** The real git, counting the `git worktree …` commands running at once in each repository. */
class CountingHost extends LocalHost {
  readonly running = new Map<string, number>();
  most = 0;
  override async git(args: readonly string[], options?: GitOptions): Promise<GitResult> {
    if (!args.includes('worktree')) return super.git(args, options);
    const repo = options?.cwd ?? '';
    this.running.set(repo, (this.running.get(repo) ?? 0) + 1);
    this.most = Math.max(this.most, this.running.get(repo)!);
    try {
      return await super.git(args, options);
    } finally {
      this.running.set(repo, this.running.get(repo)! - 1);
    }
  }
}

describe('worktrees of one repository made and removed at once (three agents started together)', () => {
  it('are handed to git one at a time per repository, since git does not guard its worktree commands against each other', async () => {
    const root = tempDir('sb-wt-concurrent-');
    const repos = ['one', 'two'].map((name) => {
      const repo = join(root, name);
      sh(root, 'init', '-q', '-b', 'main', repo);
      sh(repo, '-c', 'user.email=t@e', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
      return repo;
    });
    const host = new CountingHost();
    const names = Array.from({ length: 6 }, (_, i) => `sb/agent-${i}`);
    await Promise.all(repos.flatMap((repo) => names.map((b) => addWorktree(host, repo, `${repo}-${b.replace('/', '-')}`, b, 'HEAD'))));
    expect(host.most).toBe(1);
    for (const repo of repos) expect(sh(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1 + names.length);
    // Removal and a prune beside it, all at once.
    await Promise.all([...names.map((b) => removeWorktree(host, repos[0]!, `${repos[0]}-${b.replace('/', '-')}`, b)), pruneWorktrees(host, repos[0]!)]);
    expect(host.most).toBe(1);
    expect(sh(repos[0]!, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(existsSync(`${repos[0]}-sb-agent-0`)).toBe(false);
    expect(sh(repos[1]!, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1 + names.length);
  });
});
