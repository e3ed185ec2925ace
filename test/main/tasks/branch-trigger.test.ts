import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { tempDir } from '../../support/app-server';
import { FakeClock } from '../../support/fake-clock';
import { gitIn, initRepo } from '../../support/git-repo';
import { eventually, makeCore, type TestCore } from '../acp/helpers';
import { BRANCH_POLL_MS, BRANCH_QUIET_MS } from '../../../src/main/core/tasks/branch-watcher';

/**
 * A task that runs when its repository's branch moves, on the real core with a real git repository and the
 * scenario agent: a new commit on the branch queues one run after a quiet spell, a burst of commits is one run,
 * and commits elsewhere or a branch that stays put run nothing.
 */

let cores: TestCore[] = [];
afterEach(async () => {
  for (const c of cores) await c.dispose();
  cores = [];
});

const commit = (dir: string, file: string) => {
  writeFileSync(join(dir, file), `${file}\n`);
  gitIn(dir)('add', '-A');
  gitIn(dir)('commit', '-qm', `add ${file}`);
};

describe('a task that runs on a new commit', () => {
  it('a burst of commits on its branch queues exactly one run once the branch stays put; other branches run nothing', async () => {
    const clock = new FakeClock(Date.parse('2026-05-04T06:00:00Z'));
    const t = await makeCore({ clock, timeZone: 'UTC' });
    cores.push(t);
    initRepo(t.work);
    const git = gitIn(t.work);
    git('branch', 'other');
    const agentId = await t.addAgent();
    const task = await t.call('tasks.save', { task: { name: 'check main', prompts: ['look at the new commit'], agentId, folder: t.work, onCommit: { branch: 'main' } } });
    expect(task.onCommit).toEqual({ branch: 'main' });
    const runs = async () => (await t.call('tasks.runs', { inbox: false })).runs;

    // Where main is now is noted; nothing runs for it.
    await clock.advance(BRANCH_POLL_MS);
    expect(await runs()).toHaveLength(0);

    // Three commits in a row (a push): still moving at the next poll, so nothing yet.
    commit(t.work, 'a.txt');
    commit(t.work, 'b.txt');
    await clock.advance(BRANCH_POLL_MS);
    commit(t.work, 'c.txt');
    await clock.advance(BRANCH_POLL_MS);
    expect(await runs()).toHaveLength(0);

    // Main stays on c.txt for the quiet spell: one run, for the task, said to come from the commit.
    await clock.advance(BRANCH_QUIET_MS);
    const list = await runs();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ taskId: task.id, trigger: 'commit', name: 'check main' });
    await eventually(async () => (await runs())[0]?.state === 'done', 'the run ends', 10_000);

    // Ten quiet minutes and a commit on another branch: no second run.
    git('checkout', '-q', 'other');
    commit(t.work, 'elsewhere.txt');
    await clock.advance(10 * 60_000);
    expect(await runs()).toHaveLength(1);

    // The next commit on main runs it once more.
    git('checkout', '-q', 'main');
    commit(t.work, 'd.txt');
    await clock.advance(BRANCH_POLL_MS + BRANCH_QUIET_MS + BRANCH_POLL_MS);
    expect((await runs()).filter((r) => r.trigger === 'commit')).toHaveLength(2);
    await eventually(async () => (await runs()).every((r) => r.state === 'done'), 'the second run ends', 10_000);
  });

  it('a task without the trigger, or whose branch is gone, never runs on commits', async () => {
    const clock = new FakeClock(Date.parse('2026-05-04T06:00:00Z'));
    const t = await makeCore({ clock, timeZone: 'UTC' });
    cores.push(t);
    initRepo(t.work);
    const agentId = await t.addAgent();
    await t.call('tasks.save', { task: { name: 'plain', prompts: ['p'], agentId, folder: t.work } });
    await t.call('tasks.save', { task: { name: 'gone', prompts: ['p'], agentId, folder: t.work, onCommit: { branch: 'no-such-branch' } } });
    await clock.advance(BRANCH_POLL_MS);
    commit(t.work, 'a.txt');
    await clock.advance(BRANCH_POLL_MS * 2 + BRANCH_QUIET_MS);
    expect((await t.call('tasks.runs', { inbox: false })).runs).toHaveLength(0);
  });

  it('a commit made while the app was closed runs the task after the next start; a start with no new commit runs nothing', async () => {
    const at = Date.parse('2026-05-04T06:00:00Z');
    // The store and the repository outlive each core.
    const dataDir = tempDir('sb-branch-data-');
    const repo = tempDir('sb-branch-repo-');
    initRepo(repo);
    const firstClock = new FakeClock(at);
    const first = await makeCore({ clock: firstClock, timeZone: 'UTC', dataDir });
    cores.push(first);
    // (The agent's own folder is the repository: each core's scratch folder goes with it.)
    const { command, args } = scenarioAgentCommand();
    const agentId = (await first.call('agents.addCustom', { name: 'Scenario', command, args, env: {}, cwd: repo })).id;
    await first.call('tasks.save', { task: { name: 'check main', prompts: ['look at the new commit'], agentId, folder: repo, onCommit: { branch: 'main' } } });
    await firstClock.advance(BRANCH_POLL_MS);
    await first.dispose();
    cores = [];

    const restart = async () => {
      const clock = new FakeClock(at + 3_600_000);
      const t = await makeCore({ clock, timeZone: 'UTC', dataDir });
      cores.push(t);
      await clock.advance(BRANCH_POLL_MS + BRANCH_QUIET_MS + BRANCH_POLL_MS);
      return { t, runs: (await t.call('tasks.runs', { inbox: false })).runs };
    };
    // Started again with main where it was: nothing to run.
    const quiet = await restart();
    expect(quiet.runs).toHaveLength(0);
    await quiet.t.dispose();
    cores = [];

    // A commit lands while Switchboard is closed: the next start runs the task once, for that commit.
    commit(repo, 'while-closed.txt');
    const moved = await restart();
    expect(moved.runs).toHaveLength(1);
    expect(moved.runs[0]).toMatchObject({ trigger: 'commit', name: 'check main' });
    await eventually(async () => (await moved.t.call('tasks.runs', { inbox: false })).runs[0]?.state === 'done', 'the run ends', 10_000);
  });
});
