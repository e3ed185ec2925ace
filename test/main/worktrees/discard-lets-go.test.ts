import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { makeFixture, type Fixture } from './support';

let f: Fixture;
beforeEach(() => {
  f = makeFixture();
});
afterEach(() => f.core.dispose());

describe('a discarded worktree', () => {
  it('ends the session that worked in it and leaves the recent folders', async () => {
    const { worktree } = await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/gone', base: 'main' });
    const agentId = await f.addAgent();
    const session = await f.call<{ id: string }>('sessions.create', { agentId, cwd: worktree.path });
    f.core.settings.set({ key: 'sessions.recentFolders', value: [worktree.path, f.repo] });
    expect((await f.call<{ session: { status: string } }>('sessions.state', { sessionId: session.id })).session.status).toBe('idle');

    await f.ok('worktrees.discard', { path: worktree.path, unmerged: [] });
    await expect.poll(() => f.core.acp.sessions.session(session.id)?.info().status ?? 'closed', { timeout: 15_000 }).toBe('closed');
    expect(f.core.settings.get('sessions.recentFolders')).toEqual([f.repo]);
  });
});
