import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SetupEnd, SetupRun, WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { tempDir } from '../../support/app-server';
import { fakeGh, ghCalls, makeFixture, sh, type Fixture } from './support';

let f: Fixture;
const savedPath = process.env.PATH;
beforeEach(() => {
  f = makeFixture();
});
afterEach(async () => {
  process.env.PATH = savedPath;
  await f.core.dispose();
});

const setSetup = (setupCommand: string, setupTimeoutSeconds = 600) =>
  f.core.settings.set({ key: 'worktrees.repos', value: { [sh(f.repo, 'rev-parse', '--show-toplevel').trim()]: { setupCommand, setupTimeoutSeconds } } });
const create = (branch: string) => f.ok<{ worktree: WorktreeInfo; setup: SetupRun | null }>('worktrees.create', { kind: 'new', repo: f.repo, branch, base: 'main' });
const output = (id: string) =>
  f.events
    .filter((e) => e.name === 'worktrees.setupOutput' && (e.payload as { id: string }).id === id)
    .map((e) => (e.payload as { chunk: string }).chunk)
    .join('');
const ended = (id: string) => f.events.find((e) => e.name === 'worktrees.setupEnded' && (e.payload as { id: string }).id === id)?.payload as { end: SetupEnd } | undefined;

describe('the setup command of a new worktree', () => {
  it('runs in the new worktree with its output streamed', async () => {
    writeFileSync(join(f.repo, '.env'), 'SECRET=1\n');
    setSetup(`cp "${join(f.repo, '.env')}" .env && echo "copied into $(basename "$PWD")" && echo warn >&2`);
    const { worktree, setup } = await create('sb/setup');
    expect(setup).not.toBeNull();
    const end = await f.core.worktrees.setup.wait(setup!.id);
    expect(end).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(readFileSync(join(worktree.path, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(output(setup!.id)).toContain('copied into sb-setup');
    expect(output(setup!.id)).toContain('warn');
    expect(ended(setup!.id)?.end.status).toBe('succeeded');
  });

  it('reports a failing command with its output', async () => {
    setSetup('echo "npm ERR! missing lockfile"; exit 3');
    const { setup } = await create('sb/fails');
    expect(await f.core.worktrees.setup.wait(setup!.id)).toMatchObject({ status: 'failed', exitCode: 3, tail: expect.stringContaining('missing lockfile') });
  });

  it('is cancelled on request, what it started too', async () => {
    const ticks = join(f.root, 'ticks');
    setSetup(`(while :; do echo tick >> "${ticks}"; sleep 0.1; done) & echo started; sleep 30`);
    const { setup } = await create('sb/cancel');
    await expect.poll(() => output(setup!.id), { timeout: 15_000 }).toContain('started');
    expect(await f.call('worktrees.setupCancel', { id: setup!.id })).toEqual({ cancelled: true });
    expect((await f.core.worktrees.setup.wait(setup!.id))?.status ?? ended(setup!.id)?.end.status).toBe('cancelled');
    expect(await f.call('worktrees.setupCancel', { id: setup!.id })).toEqual({ cancelled: false });
    const runs = await f.call<{ runs: SetupRun[] }>('worktrees.setupRuns', {});
    expect(runs.runs.find((r) => r.id === setup!.id)?.ended?.status).toBe('cancelled');
    // The loop it left running in the background was ended with it.
    const size = readFileSync(ticks, 'utf8').length;
    await new Promise((r) => setTimeout(r, 600));
    expect(readFileSync(ticks, 'utf8').length).toBe(size);
  });

  it('is stopped at its timeout', async () => {
    setSetup('echo waiting; sleep 30', 1);
    const { setup } = await create('sb/timeout');
    const end = await f.core.worktrees.setup.wait(setup!.id);
    expect(end).toMatchObject({ status: 'timed_out', tail: expect.stringContaining('waiting') });
  });

  it('is not run when the repository has none', async () => {
    expect((await create('sb/none')).setup).toBeNull();
  });
});

/** A PATH with git and nothing else (no gh, whatever this machine has installed). */
function pathWithoutGh(): string {
  const dir = tempDir('sb-path-');
  mkdirSync(join(dir, 'bin'));
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(dir, 'bin/git'));
  return join(dir, 'bin');
}

describe('pull requests', () => {
  const committed = async (branch: string) => {
    const { worktree } = await create(branch);
    writeFileSync(join(worktree.path, 'feature.txt'), 'new\n');
    await f.ok('worktrees.commit', { path: worktree.path, message: 'Add feature', files: ['feature.txt'] });
    return worktree;
  };

  it('opens one through gh when it is installed and signed in, after pushing the branch', async () => {
    const gh = fakeGh(true);
    process.env.PATH = `${gh.dir}:${savedPath}`;
    const wt = await committed('sb/feature');
    const pr = await f.ok<{ via: string; url: string | null }>('worktrees.pullRequest', { path: wt.path, title: 'Add the feature', body: 'Drafted from the session.\n\n- one', draft: true });
    expect(pr).toMatchObject({ via: 'gh', url: 'https://github.example/acme/project/pull/42' });
    expect(ghCalls(gh.log)).toEqual([
      ['auth', 'status'],
      ['pr', 'create', '--base=main', '--head=sb/feature', '--title=Add the feature', '--body=Drafted from the session.\n\n- one', '--draft'],
    ]);
    expect(sh(f.origin, 'log', '--format=%s', 'sb/feature')).toBe('Add feature\ninit\n');
  });

  it('pushes and returns the compare URL the remote printed when gh is not signed in, or not installed', async () => {
    // What GitHub's remote says after a push of a new branch, from a hook of the bare repository.
    writeFileSync(
      join(f.origin, 'hooks/post-receive'),
      '#!/bin/sh\necho "Create a pull request for \'sb/x\' on GitHub by visiting:"\necho "     https://github.example/acme/project/pull/new/sb/x"\n',
    );
    chmodSync(join(f.origin, 'hooks/post-receive'), 0o755);
    const gh = fakeGh(false);
    process.env.PATH = `${gh.dir}:${savedPath}`;
    const a = await committed('sb/x');
    const viaPush = await f.ok<{ via: string; compareUrl: string | null; reason: string }>('worktrees.pullRequest', { path: a.path, title: 'X' });
    expect(viaPush).toMatchObject({ via: 'push', compareUrl: 'https://github.example/acme/project/pull/new/sb/x', reason: expect.stringContaining('not signed in') });
    expect(ghCalls(gh.log)).toEqual([['auth', 'status']]);

    process.env.PATH = pathWithoutGh();
    const b = await committed('sb/y');
    const noGh = await f.ok<{ via: string; reason: string }>('worktrees.pullRequest', { path: b.path, title: 'Y' });
    expect(noGh).toMatchObject({ via: 'push', reason: 'gh is not installed' });
    expect(sh(f.origin, 'log', '--format=%s', 'sb/y')).toBe('Add feature\ninit\n');
  });
});
