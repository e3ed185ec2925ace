import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { tempDir } from '../../support/app-server';
import { fakeGh, ghCalls, makeFixture, sh, type Fixture } from './support';

/** Values that reach git's or gh's command line are operands, never options, whoever chose them. */
let f: Fixture;
let marker: string;
let script: string;
const savedPath = process.env.PATH;
beforeEach(() => {
  f = makeFixture();
  const dir = tempDir('sb-opt-');
  marker = join(dir, 'ran');
  script = join(dir, 'evil');
  writeFileSync(script, `#!/bin/sh\ntouch "${marker}"\nexit 1\n`);
  chmodSync(script, 0o755);
});
afterEach(() => {
  process.env.PATH = savedPath;
  f.core.dispose();
});

async function committed(branch: string): Promise<WorktreeInfo> {
  const { worktree } = await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base: 'main' });
  writeFileSync(join(worktree.path, 'feature.txt'), 'new\n');
  await f.ok('worktrees.commit', { path: worktree.path, message: 'Add feature', files: ['feature.txt'] });
  return worktree;
}

describe('a push', () => {
  it('refuses a remote that reads as an option or names a command transport, and runs nothing', async () => {
    const w = await committed('sb/push');
    for (const remote of [`--receive-pack=${script}`, `--exec=${script}`, '-o', `ext::${script}`, `fd::3`, ' --receive-pack=x']) {
      const error = await f.fails('worktrees.push', { path: w.path, remote });
      expect(error.kind, remote).toBe('no_remote');
    }
    expect(existsSync(marker)).toBe(false);
    expect(sh(f.origin, 'branch', '--list', 'sb/push')).toBe('');
  });

  it("refuses the same from the branch's configured remote", async () => {
    const w = await committed('sb/configured');
    sh(f.repo, 'config', 'branch.sb/configured.remote', `--receive-pack=${script}`);
    expect((await f.fails('worktrees.push', { path: w.path })).kind).toBe('no_remote');
    expect(existsSync(marker)).toBe(false);
  });

  it('still pushes to a named remote and to an address', async () => {
    const w = await committed('sb/fine');
    await f.ok('worktrees.push', { path: w.path, remote: 'origin' });
    await f.ok('worktrees.push', { path: w.path, remote: f.origin });
    expect(sh(f.origin, 'log', '--format=%s', 'sb/fine')).toBe('Add feature\ninit\n');
  });
});

describe('a pull request through gh', () => {
  it('passes a title and body that start with dashes as text', async () => {
    const gh = fakeGh(true);
    process.env.PATH = `${gh.dir}:${savedPath}`;
    const w = await committed('sb/pr');
    await f.ok('worktrees.pullRequest', { path: w.path, title: '--repo=evil/fork', body: '--web', draft: false });
    expect(ghCalls(gh.log).at(-1)).toEqual(['pr', 'create', '--base=main', '--head=sb/pr', '--title=--repo=evil/fork', '--body=--web']);
  });
});
