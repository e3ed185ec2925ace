import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SetupRun, WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { makeFixture, sh, type Fixture } from './support';

let f: Fixture;
beforeEach(() => {
  f = makeFixture();
});
afterEach(async () => f.core.dispose());

const top = () => sh(f.repo, 'rev-parse', '--show-toplevel').trim();
const create = (branch: string, repo = f.repo) => f.ok<{ worktree: WorktreeInfo; setup: SetupRun | null }>('worktrees.create', { kind: 'new', repo, branch, base: 'main' });
const setRepos = (value: unknown) => f.call('settings.set', { key: 'worktrees.repos', value });

/** Per-repository worktree settings, as Settings → Worktrees lists, edits and removes them (setting worktrees.repos). */
describe('per-repository worktree settings', () => {
  it('are kept under the main checkout and apply to its new worktrees (asked from any folder of it), with defaults for what is left out', async () => {
    await setRepos({ [top()]: { setupCommand: 'echo set up in "$(basename "$PWD")"' } });
    const all = await f.call<{ entry: { value: Record<string, unknown> } }>('settings.get', { key: 'worktrees.repos' });
    expect(all.entry.value).toEqual({ [top()]: { alwaysNewWorktree: false, setupCommand: 'echo set up in "$(basename "$PWD")"', setupTimeoutSeconds: 600 } });
    expect(f.events.some((e) => e.name === 'settings.changed' && (e.payload as { key: string }).key === 'worktrees.repos')).toBe(true);
    // Asked from a folder inside the repository, the main checkout's settings apply.
    const { setup } = await create('sb/one', `${f.repo}/src`);
    expect(setup?.command).toBe('echo set up in "$(basename "$PWD")"');
    expect(await f.core.worktrees.setup.wait(setup!.id)).toMatchObject({ status: 'succeeded', tail: expect.stringContaining('set up in sb-one') });
  });

  it('use an edited timeout, and nothing runs once they are removed', async () => {
    await setRepos({ [top()]: { setupCommand: 'echo slow; sleep 30', setupTimeoutSeconds: 600 } });
    await setRepos({ [top()]: { setupCommand: 'echo slow; sleep 30', setupTimeoutSeconds: 1, alwaysNewWorktree: true } });
    const { setup } = await create('sb/edited');
    expect(await f.core.worktrees.setup.wait(setup!.id)).toMatchObject({ status: 'timed_out' });

    await setRepos({});
    expect((await create('sb/removed')).setup).toBeNull();
  });

  it('refuse a value that does not fit, and keep what was there', async () => {
    await setRepos({ [top()]: { setupCommand: 'true' } });
    for (const bad of [
      { 'relative/path': {} },
      { [top()]: { setupTimeoutSeconds: 0 } },
      { [top()]: { setupTimeoutSeconds: 1.5 } },
      { [top()]: { setupCommand: 'x'.repeat(4001) } },
      { [top()]: { alwaysNewWorktree: 'yes' } },
      Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`/repo/${i}`, {}])),
    ]) {
      await expect(setRepos(bad), JSON.stringify(bad).slice(0, 80)).rejects.toThrow();
    }
    const kept = await f.call<{ entry: { value: Record<string, { setupCommand: string }> } }>('settings.get', { key: 'worktrees.repos' });
    expect(Object.keys(kept.entry.value)).toEqual([top()]);
    expect(kept.entry.value[top()]!.setupCommand).toBe('true');
  });
});
