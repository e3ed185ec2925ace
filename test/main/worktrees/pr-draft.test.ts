import { afterEach, describe, expect, it } from 'vitest';
import { messageText } from '../../../src/shared/acp-thread';
import type { WorktreeInfo } from '../../../src/shared/contract/worktrees';
import { fakeGh, ghCalls, makeFixture, sh, type Fixture } from './support';

let f: Fixture;
const savedPath = process.env.PATH;
afterEach(async () => {
  process.env.PATH = savedPath;
  await f?.core.dispose();
});

/** A worktree session with the scenario agent (a real subprocess), with one commit of the agent's work. */
async function sessionWithCommit(env: Record<string, string> = {}) {
  f = makeFixture();
  const { worktree } = await f.ok<{ worktree: WorktreeInfo }>('worktrees.create', { kind: 'new', repo: f.repo, branch: 'sb/greet', base: 'main' });
  const agentId = await f.addAgent('Scenario', env);
  const session = await f.call<{ id: string }>('sessions.create', { agentId, cwd: worktree.path });
  expect((await f.promptAndWait(session.id, 'sh-write src/greet.ts export const greet = (name: string) => `hi ${name}`;\\n')).error).toBeNull();
  await f.ok('worktrees.commit', { path: worktree.path, message: 'Greet the user by name', files: ['src/greet.ts'] });
  return { worktree, sessionId: session.id };
}

describe('a pull request drafted by the session’s agent', () => {
  it('asks the agent in the session, reads its title and description, and the edited draft goes to gh', async () => {
    const { worktree, sessionId } = await sessionWithCommit();
    const draft = await f.ok<{ title: string; body: string }>('worktrees.draftPullRequest', { path: worktree.path, sessionId });
    // The agent's chatter ("Sure! Here is a draft:") and the "**Title:**" label are not part of the draft.
    expect(draft.title).toBe('Greet the user by name');
    expect(draft.body).toBe('## What changed\n- `src/greet.ts`\n\nTested: 1 commit(s) on sb/greet.');
    // The prompt went into the session's own thread, naming the branch, the base and the commits.
    const { thread } = f.core.acp.sessions.session(sessionId)!.snapshot();
    const asked = messageText(thread.entries.filter((e) => e.kind === 'user_message').at(-1)!.parts);
    expect(asked).toContain('Draft a pull request for the branch sb/greet into main.');
    expect(asked).toContain('- Greet the user by name');

    const gh = fakeGh(true);
    process.env.PATH = `${gh.dir}:${savedPath}`;
    const body = `${draft.body}\n\nReviewed by me.`;
    await f.ok('worktrees.pullRequest', { path: worktree.path, title: draft.title, body });
    expect(ghCalls(gh.log)[1]).toEqual(['pr', 'create', '--base=main', '--head=sb/greet', '--title=Greet the user by name', `--body=${body}`]);
    expect(sh(f.origin, 'log', '--format=%s', 'sb/greet')).toBe('Greet the user by name\ninit\n');
  });

  it('keeps terminal sequences, control and bidi characters out of a hostile reply, whatever its wrapping', async () => {
    const reply = [
      '```markdown',
      '# "\u001b[31mFix\u001b[0m the \u202elogin\u202c\u0007 form"',
      '',
      'Description: It \u001b]8;;https://evil.example\u0007now\u001b]8;;\u0007 checks\u0000 the password.',
      '```',
    ].join('\n');
    const { worktree, sessionId } = await sessionWithCommit({ SCENARIO_DRAFT_REPLY: reply.replace('\u0000', '') });
    const draft = await f.ok<{ title: string; body: string }>('worktrees.draftPullRequest', { path: worktree.path, sessionId });
    expect(draft).toEqual({ title: 'Fix the login form', body: 'It now checks the password.' });
  });

  it('says so when the reply holds no draft, or the session works elsewhere', async () => {
    const { worktree, sessionId } = await sessionWithCommit({ SCENARIO_DRAFT_REPLY: '   \n\n  ' });
    expect(await f.fails('worktrees.draftPullRequest', { path: worktree.path, sessionId })).toEqual({ kind: 'no_draft', message: 'the agent replied with nothing' });

    const agentId = await f.addAgent('Elsewhere');
    const inMain = await f.call<{ id: string }>('sessions.create', { agentId, cwd: f.repo });
    expect(await f.fails('worktrees.draftPullRequest', { path: worktree.path, sessionId: inMain.id })).toMatchObject({ kind: 'no_draft', message: expect.stringContaining('not in this worktree') });
    expect(await f.fails('worktrees.draftPullRequest', { path: worktree.path, sessionId: 'no-such-session' })).toEqual({ kind: 'no_draft', message: 'the session is not open' });
  });
});
