import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRepository } from '../../../src/main/core/agents/agent-repository';
import { AppCore } from '../../../src/main/app-core';
import type { Compare } from '../../../src/shared/contract/compare';
import { tempDir } from '../../support/app-server';

const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

let core: AppCore;
let repo: string;

beforeEach(() => {
  core = new AppCore({ dataDir: tempDir('sb-cmp-data-'), transport: 'browser', version: 'test' });
  const agents = new AgentRepository(core.store.db);
  for (const id of ['alpha', 'beta']) agents.upsert({ id, name: id, source: 'custom', command: 'true', args: [], env: {}, cwd: null, version: null, registryId: null });
  repo = tempDir('sb-cmp-repo-');
  sh(repo, 'init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src/app.ts'), 'export const greeting = "hello";\n');
  writeFileSync(join(repo, 'README.md'), '# demo\n');
  sh(repo, 'add', '-A');
  sh(repo, 'commit', '-qm', 'init');
});
afterEach(() => core.dispose());

async function call<T>(method: string, params: unknown): Promise<T> {
  const r = await core.router.invoke(method, params);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

describe('compare mode worktrees', () => {
  it('gives each agent its own worktree, applies the chosen one, and cleans up', async () => {
    const cmp = await call<Compare>('compare.create', { repo: join(repo, 'src'), prompt: 'make it friendlier', agentIds: ['alpha', 'beta'], start: false });
    expect(cmp.repo).toBe(repo);
    expect(cmp.runs).toHaveLength(2);
    const [a, b] = cmp.runs as [Compare['runs'][number], Compare['runs'][number]];
    expect(a.worktree).not.toBe(b.worktree);
    expect(readFileSync(join(a.worktree, 'src/app.ts'), 'utf8')).toContain('hello');

    // What the two agents did, each in its own worktree.
    writeFileSync(join(a.worktree, 'src/app.ts'), 'export const greeting = "hello, friend";\n');
    writeFileSync(join(a.worktree, 'src/new.ts'), 'export const added = true;\n');
    writeFileSync(join(b.worktree, 'README.md'), '# demo\n\nNow with docs.\n');

    // The main checkout is untouched until "apply this one".
    expect(readFileSync(join(repo, 'src/app.ts'), 'utf8')).toContain('"hello"');
    const applied = await call<{ files: string[] }>('compare.apply', { compareId: cmp.id, runId: a.id });
    expect(applied.files.sort()).toEqual(['src/app.ts', 'src/new.ts']);
    expect(readFileSync(join(repo, 'src/app.ts'), 'utf8')).toContain('hello, friend');
    expect(existsSync(join(repo, 'src/new.ts'))).toBe(true);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# demo\n');
    expect((await call<Compare>('compare.get', { compareId: cmp.id })).runs[0]!.appliedAt).not.toBeNull();

    await call('compare.discard', { compareId: cmp.id });
    expect(existsSync(a.worktree)).toBe(false);
    expect(existsSync(b.worktree)).toBe(false);
    expect(sh(repo, 'worktree', 'list')).not.toContain('compare');
    expect(sh(repo, 'branch', '--list', 'switchboard/*').trim()).toBe('');
  });

  it('refuses to apply over lines the main checkout changed since, touching nothing', async () => {
    const cmp = await call<Compare>('compare.create', { repo, prompt: 'p', agentIds: ['alpha'], start: false });
    const run = cmp.runs[0]!;
    writeFileSync(join(run.worktree, 'src/app.ts'), 'export const greeting = "from the agent";\n');
    writeFileSync(join(repo, 'src/app.ts'), 'export const greeting = "edited by the user meanwhile";\n');
    const r = await core.router.invoke('compare.apply', { compareId: cmp.id, runId: run.id });
    expect(r).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(readFileSync(join(repo, 'src/app.ts'), 'utf8')).toContain('edited by the user meanwhile');
    await call('compare.discard', { compareId: cmp.id });
  });

  it('refuses a folder that is not a git repository, and unknown agents, leaving no worktree behind', async () => {
    const plain = tempDir('sb-cmp-plain-');
    expect(await core.router.invoke('compare.create', { repo: plain, prompt: 'p', agentIds: ['alpha'] })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    expect(await core.router.invoke('compare.create', { repo, prompt: 'p', agentIds: ['alpha', 'nobody'] })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(sh(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it("runs no hook and no fsmonitor an agent planted in the repository, unless the user lets hooks run", async () => {
    const marker = join(repo, 'hook-ran');
    for (const hook of ['post-checkout', 'pre-commit', 'post-index-change', 'reference-transaction']) {
      writeFileSync(join(repo, '.git/hooks', hook), `#!/bin/sh\necho ${hook} >> "${marker}"\n`, { mode: 0o755 });
    }
    sh(repo, 'config', 'core.fsmonitor', `echo fsmonitor >> "${marker}"; false`);
    const cmp = await call<Compare>('compare.create', { repo, prompt: 'p', agentIds: ['alpha'], start: false });
    writeFileSync(join(cmp.runs[0]!.worktree, 'README.md'), '# demo\n\nmore\n');
    await call('compare.apply', { compareId: cmp.id, runId: cmp.runs[0]!.id });
    await call('compare.discard', { compareId: cmp.id });
    expect(existsSync(marker)).toBe(false);

    // The user's choice: hooks run as with their own git.
    await call('settings.set', { key: 'compare.runRepoHooks', value: true });
    sh(repo, 'config', '--unset', 'core.fsmonitor');
    const again = await call<Compare>('compare.create', { repo, prompt: 'p', agentIds: ['alpha'], start: false });
    expect(readFileSync(marker, 'utf8')).toContain('post-checkout');
    await call('compare.discard', { compareId: again.id });
  });
});
