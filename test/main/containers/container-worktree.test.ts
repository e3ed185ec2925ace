/**
 * A worktree session in a container, through AppCore on a real Podman: the worktree (made by Switchboard) is
 * what is mounted, and its `.git` file names the main repository's git folder, which is mounted read-only at
 * its own path, so git inside the container reads the worktree's status and history; it cannot write there.
 * The agent's edit is reviewed from this machine's side and committed by Switchboard; git inside sees it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { initRepo } from '../../support/git-repo';
import { podmanSkipReason, testImage } from '../../support/podman';
import { agentText, promptAndWait } from '../acp/helpers';
import { containerCoreRig } from './core-rig';

const skip = podmanSkipReason();

describe.skipIf(skip !== null)('a worktree session in a container (real Podman)', { timeout: 300_000 }, () => {
  const rig = containerCoreRig('sb-cwt-');

  const ok = async <T>(method: 'worktrees.create' | 'worktrees.commit', params: unknown): Promise<T> => {
    const out = (await rig.t.core.router.invoke(method, params)) as { ok: boolean; value: { ok: boolean; value: T; error?: unknown } };
    if (!out.ok || !out.value.ok) throw new Error(`${method}: ${JSON.stringify(out)}`);
    return out.value.value;
  };

  it('git works inside on the worktree, the main repository stays read-only, and the edit is reviewed and committed', async () => {
    const repo = join(rig.root, 'project');
    mkdirSync(repo);
    initRepo(repo);
    const { worktree } = await ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo, branch: 'sb/boxed', base: 'main' });
    const wt = worktree.path;
    const agent = await rig.t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [rig.bundle], env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/root' }, cwd: wt });
    const session = await rig.t.call('sessions.create', { agentId: agent.id, cwd: wt, container: { source: { kind: 'image', image: testImage('git') }, fence: { network: 'none' } } });
    rig.sessions.push(session.id);
    const fence = (await rig.t.call('containers.fence', { sessionId: session.id })).fence!;
    expect(fence.settings.find((s) => s.setting === 'files')!.how).toContain(`${join(repo, '.git')} read-only`);

    const inside = async (script: string): Promise<string> => {
      const before = agentText(rig.t.rec, session.id).length;
      expect((await promptAndWait(rig.t, session.id, `terminal ${JSON.stringify({ command: 'sh', args: ['-c', script], cwd: wt })}`, 60_000)).error).toBeNull();
      const said = agentText(rig.t.rec, session.id).slice(before);
      return (JSON.parse(said.slice(said.indexOf('{'))) as { output: string }).output;
    };
    // git inside reads the worktree: its branch and the repository's history.
    const git = 'git --no-pager -c safe.directory=* -c color.ui=never ';
    expect(await inside(`${git}rev-parse --abbrev-ref HEAD; ${git}log --format=%s -1; echo status:; ${git}status --short`)).toBe('sb/boxed\ninit\nstatus:\n');

    // The agent edits; git inside sees the change, and the main repository's git folder cannot be written from inside.
    expect((await promptAndWait(rig.t, session.id, `write ${wt}/feature.txt made in the box`)).error).toBeNull();
    const seen = await inside(`${git}status --short; echo hook > ${repo}/.git/hooks/post-commit && echo WROTE-HOOK || echo hook refused`);
    expect(seen).toContain('?? feature.txt');
    expect(seen).toContain('hook refused');
    expect(seen).not.toContain('WROTE-HOOK');

    // Reviewed from this machine's side, then committed by Switchboard: the branch has it, and git inside sees it.
    await rig.t.core.checkpoints.idle();
    const { turns } = await rig.t.call('checkpoints.listTurns', { sessionId: session.id });
    expect(turns.flatMap((x) => x.changes?.files.map((f) => f.path) ?? [])).toContain('feature.txt');
    await ok('worktrees.commit', { path: wt, message: 'Add the feature', files: ['feature.txt'] });
    expect(execFileSync('git', ['log', '--format=%s', '-1', 'sb/boxed'], { cwd: repo, encoding: 'utf8' }).trim()).toBe('Add the feature');
    expect(readFileSync(join(wt, 'feature.txt'), 'utf8')).toBe('made in the box');
    expect(await inside(`${git}log --format=%s -1; echo status:; ${git}status --short`)).toBe('Add the feature\nstatus:\n');
  });
});
