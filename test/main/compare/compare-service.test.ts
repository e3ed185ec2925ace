import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Compare } from '../../../src/shared/contract/compare';
import { makeCore, promptAndWait, type TestCore } from '../acp/helpers';

/** Compare mode's runs are worktree sessions of the user's repository: real git, real agent subprocesses. */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

async function setup(): Promise<{ t: TestCore; repo: string }> {
  t = await makeCore({ checkpoints: true });
  const repo = join(t.work, 'project');
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Test User');
  git(repo, 'config', 'user.email', 'test@example.test');
  writeFileSync(join(repo, 'src/app.ts'), 'export const greeting = "hello";\n');
  writeFileSync(join(repo, 'README.md'), '# demo\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'init');
  return { t, repo };
}

/** Waits until every run of the comparison has ended. */
const allEnded = (t: TestCore, id: string) =>
  t.rec.until(() => t.rec.of('compare.changed').find((c: Compare) => c.id === id && c.runs.every((r) => r.endedAt !== null)), 'every run to end', 60_000);

describe('compare mode as worktree sessions', () => {
  it('makes one worktree session per agent on its own branch; "apply this one" merges it into the main checkout, and the other is kept, then discarded', async () => {
    const { t, repo } = await setup();
    const alpha = await t.addAgent({}, 'Alpha');
    const beta = await t.addAgent({}, 'Beta');

    const created = await t.call('compare.create', { repo: join(repo, 'src'), prompt: 'write-here notes.txt written in a worktree', agentIds: [alpha, beta], start: true });
    expect(created.repo).toBe(repo);
    expect(created.base).toBe('main');
    const [a, b] = created.runs as [Compare['runs'][number], Compare['runs'][number]];
    expect(a.branch).toBe('compare/write-here-notes-txt-written-alpha');
    expect(b.branch).toBe('compare/write-here-notes-txt-written-beta');
    // In the user's worktrees folder (beside the repository), not in the data folder.
    for (const run of [a, b]) {
      expect(run.worktree.startsWith(`${repo}.worktrees/`)).toBe(true);
      expect(run.worktree.startsWith(t.dataDir)).toBe(false);
      expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${run.worktree}\nHEAD ${created.baseCommit}\nbranch refs/heads/${run.branch}`);
    }
    // Worktree sessions as the new-session form makes them: the sidebar groups them by repository and branch.
    const described = await t.call('worktrees.describe', { paths: [a.worktree, b.worktree] });
    expect(described.worktrees[a.worktree]).toMatchObject({ repo, branch: a.branch, base: 'main' });
    expect(described.worktrees[b.worktree]).toMatchObject({ repo, branch: b.branch, base: 'main' });

    const ended = await allEnded(t, created.id);
    expect(ended.runs.map((r) => r.stopReason)).toEqual(['end_turn', 'end_turn']);
    for (const run of [a, b]) expect(readFileSync(join(run.worktree, 'notes.txt'), 'utf8')).toBe('written in a worktree');
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);

    // Real sessions: in history with their worktree as folder, and one can be continued.
    const listed = await t.call('history.list', {});
    expect(listed.sessions.filter((s) => s.id === a.sessionId || s.id === b.sessionId).map((s) => s.cwd).sort()).toEqual([a.worktree, b.worktree].sort());
    expect((await promptAndWait(t, b.sessionId!, 'write-here more.txt beta went on')).stopReason).toBe('end_turn');
    expect(readFileSync(join(b.worktree, 'more.txt'), 'utf8')).toBe('beta went on');

    const applied = await t.call('compare.apply', { compareId: created.id, runId: a.id });
    if (!applied.ok) throw new Error(JSON.stringify(applied.error));
    expect(applied.value).toMatchObject({ base: 'main', strategy: 'squash', files: ['notes.txt'] });
    // Squashed into main: one new commit on top of the base, and the main checkout has the file.
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(applied.value.head);
    expect(git(repo, 'rev-list', '--parents', '-n', '1', 'main').trim().split(' ')).toEqual([applied.value.head, created.baseCommit]);
    expect(git(repo, 'log', '-1', '--format=%B', 'main')).toContain('write-here notes.txt written in a worktree');
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('written in a worktree');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo, 'more.txt'))).toBe(false);
    expect((await t.call('compare.get', { compareId: created.id })).runs[0]!.appliedAt).not.toBeNull();

    // Keep: Beta stays a worktree session.
    const kept = await t.call('compare.keep', { compareId: created.id, runId: b.id });
    expect(kept.runs[1]).toMatchObject({ discarded: false });
    expect(kept.runs[1]!.keptAt).not.toBeNull();
    expect(existsSync(b.worktree)).toBe(true);

    // Discard: the worktree service's, after its confirmation of what would be lost.
    const plan = await t.call('worktrees.discardPlan', { path: b.worktree });
    if (!plan.ok) throw new Error(JSON.stringify(plan.error));
    expect(plan.value.unmerged).toEqual([]);
    expect(plan.value.files.map((f) => f.path).sort()).toEqual(['more.txt', 'notes.txt']);
    expect(await t.call('worktrees.discard', { path: b.worktree, unmerged: [] })).toEqual({ ok: true, value: {} });
    expect(existsSync(b.worktree)).toBe(false);
    expect(git(repo, 'branch', '--list', b.branch).trim()).toBe('');
    expect(git(repo, 'worktree', 'list')).not.toContain(b.worktree);
    expect((await t.call('compare.get', { compareId: created.id })).runs.map((r) => r.discarded)).toEqual([false, true]);
  }, 90_000);

  it('refuses an apply that conflicts with the base, or that local changes in the main checkout are in the way of, listing the files and changing nothing', async () => {
    const { t, repo } = await setup();
    const alpha = await t.addAgent({}, 'Alpha');
    const cmp = await t.call('compare.create', { repo, prompt: 'write-here src/app.ts export const greeting = "from the agent";', agentIds: [alpha] });
    await allEnded(t, cmp.id);
    const run = cmp.runs[0]!;
    expect(readFileSync(join(run.worktree, 'src/app.ts'), 'utf8')).toContain('from the agent');

    // The user committed other lines in the same place meanwhile.
    writeFileSync(join(repo, 'src/app.ts'), 'export const greeting = "edited by the user";\n');
    git(repo, 'commit', '-qam', 'user edit');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const conflict = await t.call('compare.apply', { compareId: cmp.id, runId: run.id, strategy: 'merge' });
    expect(conflict).toMatchObject({ ok: false, error: { kind: 'conflict', files: ['src/app.ts'], base: 'main', branch: run.branch } });
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(readFileSync(join(repo, 'src/app.ts'), 'utf8')).toContain('edited by the user');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect((await t.call('compare.get', { compareId: cmp.id })).runs[0]!.appliedAt).toBeNull();

    // Another run, this time over an uncommitted edit of the user's in the main checkout.
    const again = await t.call('compare.create', { repo, prompt: 'write-here README.md # from the agent', agentIds: [alpha] });
    await allEnded(t, again.id);
    expect(again.runs[0]!.branch).toBe('compare/write-here-readme-md-from-alpha');
    writeFileSync(join(repo, 'README.md'), '# the user is writing this\n');
    const dirty = await t.call('compare.apply', { compareId: again.id, runId: again.runs[0]!.id });
    expect(dirty).toMatchObject({ ok: false, error: { kind: 'dirty', path: repo, files: ['README.md'] } });
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# the user is writing this\n');
  }, 90_000);

  it('applies a run whose agent renamed a file with git mv: the old name is gone from the base too', async () => {
    const { t, repo } = await setup();
    const alpha = await t.addAgent({}, 'Alpha');
    const cmp = await t.call('compare.create', { repo, prompt: 'Rename the readme', agentIds: [alpha], start: false });
    const run = cmp.runs[0]!;
    // What an agent's shell command does in its worktree: a staged rename, and an edit of the renamed file.
    git(run.worktree, 'mv', 'README.md', 'DOCS.md');
    writeFileSync(join(run.worktree, 'DOCS.md'), '# demo\n\nrenamed\n');
    // Switchboard's own passing file in a session's folder (the folder feed's sync file) is no change of the agent's.
    writeFileSync(join(run.worktree, '.switchboard-tmp-sync-0123456789ab'), '');
    const status = await t.call('worktrees.status', { path: run.worktree });
    expect(status.ok && status.value.files.map((f) => f.path).sort()).toEqual(['DOCS.md']);
    const applied = await t.call('compare.apply', { compareId: cmp.id, runId: run.id, strategy: 'merge' });
    expect(applied).toMatchObject({ ok: true, value: { strategy: 'merge' } });
    expect(git(repo, 'ls-tree', '--name-only', 'main').trim().split('\n').sort()).toEqual(['DOCS.md', 'src']);
    expect(existsSync(join(repo, 'README.md'))).toBe(false);
    expect(readFileSync(join(repo, 'DOCS.md'), 'utf8')).toContain('renamed');
    expect(git(run.worktree, 'status', '--porcelain')).toBe('?? .switchboard-tmp-sync-0123456789ab\n');
  }, 60_000);

  it('makes all the worktrees or none: when one cannot be made, those made are discarded and git says why', async () => {
    const { t, repo } = await setup();
    const alpha = await t.addAgent({}, 'Alpha');
    const beta = await t.addAgent({}, 'Beta');
    // The user's post-checkout hook runs in each new worktree, as with their own git; this one refuses the second.
    const seen = join(t.work, 'first-checkout-seen');
    writeFileSync(join(repo, '.git/hooks/post-checkout'), `#!/bin/sh\nif [ -e "${seen}" ]; then echo "no second worktree today" >&2; exit 1; fi\ntouch "${seen}"\n`, { mode: 0o755 });
    const failed = await t.callError('compare.create', { repo, prompt: 'Tidy up', agentIds: [alpha, beta] });
    expect(failed.message).toContain('Beta');
    expect(failed.message).toContain('no second worktree today');
    expect(existsSync(seen)).toBe(true);
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git(repo, 'branch', '--list', 'compare/*').trim()).toBe('');
    expect((await t.call('compare.list', {})).compares).toEqual([]);
  }, 60_000);

  it('names a second comparison of the same prompt apart, and refuses a folder that is not a git repository and unknown agents, leaving no worktree', async () => {
    const { t, repo } = await setup();
    const alpha = await t.addAgent({}, 'Alpha');
    const first = await t.call('compare.create', { repo, prompt: 'Tidy up', agentIds: [alpha, alpha], start: false });
    const second = await t.call('compare.create', { repo, prompt: 'Tidy up', agentIds: [alpha], start: false });
    expect([...first.runs, ...second.runs].map((r) => r.branch)).toEqual(['compare/tidy-up-alpha', 'compare/tidy-up-alpha-2', 'compare/tidy-up-alpha-3']);

    const plain = join(t.work, 'plain');
    mkdirSync(plain);
    const notRepo = await t.callError('compare.create', { repo: plain, prompt: 'p', agentIds: [alpha] });
    expect(notRepo).toMatchObject({ code: 'invalid_params' });
    expect(notRepo.message).toContain('is not a git repository');
    expect(await t.callError('compare.create', { repo, prompt: 'p', agentIds: [alpha, 'nobody'] })).toMatchObject({ code: 'not_found' });
    expect(await t.callError('compare.create', { repo, base: 'no-such-branch', prompt: 'p', agentIds: [alpha] })).toMatchObject({ code: 'invalid_params' });
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(4);
  }, 60_000);
});
