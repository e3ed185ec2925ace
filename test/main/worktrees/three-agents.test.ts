import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorktreeInfo, WorktreeStatus } from '../../../src/shared/contract/worktrees';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index';
import { agentLaunch, createAgentHome, isAgentInstalled, type AgentHome } from '../../support/real-agents/index';
import { fakeGh, ghCalls, makeFixture, sh, type Fixture } from './support';

let f: Fixture;
let llm: FakeLlm | null = null;
let home: AgentHome | null = null;
const savedPath = process.env.PATH;
afterEach(async () => {
  process.env.PATH = savedPath;
  await f?.core.dispose();
  await llm?.close();
  home?.dispose();
});

/**
 * The third agent: Qwen Code (a real agent, offline against the fake LLM; it starts in its `auto` mode, so it
 * writes without asking) when it is installed, else the scenario agent under a third name.
 */
async function thirdAgent(): Promise<{ id: string; write(path: string, content: string): string }> {
  if (!isAgentInstalled('qwen')) {
    console.warn('[three agents] Qwen Code is not installed (node scripts/install-test-agents.mjs qwen): a third scenario agent stands in');
    const id = await f.addAgent('Gamma');
    return { id, write: (path, content) => `sh-write ${path} ${content}\\n` };
  }
  llm = await startFakeLlm();
  home = createAgentHome('qwen');
  const launch = agentLaunch('qwen', { llmUrl: llm.url, home: home.home });
  const agent = await f.call<{ id: string }>('agents.addCustom', { name: 'Qwen Code', command: launch.command, args: launch.args, env: launch.env, cwd: f.root });
  return { id: agent.id, write: (path, content) => `Create the file ${path}. <<write:__WT__/${path}:${content}\n>>` };
}

describe('three agents on three branches of one repository', () => {
  it('work side by side without touching each other’s files; one is merged, one squash-merged, one opened as a pull request', { timeout: 240_000 }, async () => {
    f = makeFixture();
    const gh = fakeGh(true);
    process.env.PATH = `${gh.dir}:${savedPath}`;
    const alpha = await f.addAgent('Alpha');
    const beta = await f.addAgent('Beta');
    const gamma = await thirdAgent();

    const tasks = [
      { branch: 'sb/alpha', agentId: alpha, file: 'alpha/notes.md', content: '# Alpha notes', prompt: (p: string) => `sh-write ${p} # Alpha notes\\n` },
      { branch: 'sb/beta', agentId: beta, file: 'beta/plan.md', content: '# Beta plan', prompt: (p: string) => `sh-write ${p} # Beta plan\\n` },
      { branch: 'sb/gamma', agentId: gamma.id, file: 'gamma/readme.md', content: '# Gamma readme', prompt: (p: string) => gamma.write(p, '# Gamma readme') },
    ];
    // Each in its own worktree session, all three at once.
    const sessions = await Promise.all(
      tasks.map(async (t) => {
        const { worktree } = await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch: t.branch, base: 'main' });
        const session = await f.call<{ id: string }>('sessions.create', { agentId: t.agentId, cwd: worktree.path });
        const end = await f.promptAndWait(session.id, t.prompt(t.file).replace('__WT__', worktree.path), 180_000);
        expect(end.error, t.branch).toBeNull();
        return { ...t, worktree, sessionId: session.id };
      }),
    );

    // None touched the others' files: each worktree holds its own change only, and the main checkout none.
    for (const s of sessions) {
      const status = await f.ok<WorktreeStatus>('worktrees.status', { path: s.worktree.path });
      expect(status.files.map((x) => x.path), s.branch).toEqual([s.file]);
      expect(readFileSync(join(s.worktree.path, s.file), 'utf8').trim()).toBe(s.content);
      await f.ok('worktrees.commit', { path: s.worktree.path, message: `Add ${s.file}`, files: [s.file] });
    }
    expect(sh(f.repo, 'status', '--porcelain')).toBe('');
    const [a, b, c] = sessions as [(typeof sessions)[0], (typeof sessions)[0], (typeof sessions)[0]];

    // Alpha: a merge commit into main (in the main checkout, where main is checked out).
    const merged = await f.ok<{ head: string }>('worktrees.merge', { path: a.worktree.path, strategy: 'merge' });
    expect(sh(f.repo, 'log', '-1', '--format=%P %s', 'main').trim()).toBe(`${sh(f.repo, 'rev-parse', 'HEAD~1').trim()} ${sh(f.repo, 'rev-parse', 'sb/alpha').trim()} Merge branch 'sb/alpha'`);
    expect(merged.head).toBe(sh(f.repo, 'rev-parse', 'main').trim());
    // Beta: squashed into one commit on main (one parent), beta's file and nothing else.
    await f.ok('worktrees.merge', { path: b.worktree.path, strategy: 'squash' });
    expect(sh(f.repo, 'log', '-1', '--format=%s', 'main').trim()).toBe("Squashed branch 'sb/beta'");
    expect(sh(f.repo, 'log', '-1', '--format=%P', 'main').trim().split(' ')).toEqual([merged.head]);
    expect(sh(f.repo, 'log', '-1', '--format=', '--name-only', 'main').trim()).toBe('beta/plan.md');
    // Gamma: pushed and opened as a pull request through (the stand-in) gh.
    const pr = await f.ok<{ via: string; url: string | null }>('worktrees.pullRequest', { path: c.worktree.path, title: 'Add the gamma readme', body: 'From the gamma session.' });
    expect(pr).toMatchObject({ via: 'gh', url: 'https://github.example/acme/project/pull/42' });
    expect(ghCalls(gh.log).at(-1)).toEqual(['pr', 'create', '--base=main', '--head=sb/gamma', '--title=Add the gamma readme', '--body=From the gamma session.']);

    // What git says: main has alpha's and beta's work and not gamma's; the remote has gamma's branch.
    expect(sh(f.repo, 'log', '--format=%s', 'main')).toBe("Squashed branch 'sb/beta'\nMerge branch 'sb/alpha'\nAdd alpha/notes.md\ninit\n");
    expect(sh(f.repo, 'ls-tree', '-r', '--name-only', 'main')).toBe('README.md\nalpha/notes.md\nbeta/plan.md\nsrc/app.ts\n');
    expect(existsSync(join(f.repo, 'alpha/notes.md')) && existsSync(join(f.repo, 'beta/plan.md')) && !existsSync(join(f.repo, 'gamma'))).toBe(true);
    expect(sh(f.origin, 'log', '--format=%s', 'sb/gamma')).toBe('Add gamma/readme.md\ninit\n');
    expect(sh(f.origin, 'ls-tree', '-r', '--name-only', 'sb/gamma')).toBe('README.md\ngamma/readme.md\nsrc/app.ts\n');
    expect(sh(f.origin, 'branch', '--format=%(refname:short)')).toBe('main\nsb/gamma\n');
  });
});
