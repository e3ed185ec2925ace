import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Compare } from '../../../src/shared/contract/compare';
import { makeCore, type TestCore } from '../acp/helpers';

/** Compare starts its runs through the sessions service and records each run's end from the service's turn events. */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

describe('compare runs', () => {
  it('start a session per agent, send the prompt, and end with the turn; a run whose agent cannot start says why', async () => {
    t = await makeCore({ checkpoints: true });
    const repo = join(t.work, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# demo\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'init');
    const good = await t.addAgent({}, 'Good');
    const broken = (await t.call('agents.addCustom', { name: 'Broken', command: join(t.work, 'no-such-agent'), args: [], env: {}, cwd: null })).id;

    const created = await t.call('compare.create', { repo, prompt: 'hello from compare', agentIds: [good, broken], start: true });
    const [ok, bad] = created.runs;
    expect(ok!.sessionId).not.toBeNull();
    expect(bad!.sessionId).toBeNull();
    expect(bad!.error).toMatch(/no-such-agent|ENOENT|not found|spawn/i);

    const ended = await t.rec.until(
      () => t!.rec.of('compare.changed').find((c: Compare) => c.id === created.id && c.runs[0]!.endedAt !== null)?.runs[0],
      'the run to end with its turn',
    );
    expect(ended.stopReason).toBe('end_turn');
    expect(ended.error).toBeNull();
    const prompts = t.rec.updates().filter((u) => u.sessionId === ok!.sessionId && u.event.type === 'prompt');
    expect(prompts).toHaveLength(1);
  }, 60_000);
});
