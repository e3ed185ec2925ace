import { afterEach, describe, expect, it } from 'vitest';
import type { Compare } from '../../../src/shared/contract/compare';
import { initRepo } from '../../support/git-repo';
import { makeCore, type TestCore } from '../acp/helpers';

/**
 * A judge for compare (issue 42) on the real core, with the scenario agent as runner and as judge: once every run
 * ended, the judge is given each run's diff and last message and its scored summary is recorded beside the runs;
 * the export is one HTML file where the runs' content is text, never markup.
 */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const HOSTILE = `<img src=x onerror="fetch('http://127.0.0.1:9/img')"><script>fetch('http://127.0.0.1:9/script')</script>`;

describe('the compare judge', () => {
  it("scores each run from its diff and last message once all ended, and the export holds prompt, runs and verdict as escaped text", async () => {
    t = await makeCore();
    initRepo(t.work);
    const writer = await t.addAgent({}, 'Writer');
    const judge = await t.addAgent({}, 'Judge');
    const broken = (await t.call('agents.addCustom', { name: 'Broken', command: '/nonexistent/agent', args: [], env: {}, cwd: null })).id;
    const prompt = `sh-write a.txt one\\ntwo\\n${HOSTILE}\\n`;
    const created = await t.call('compare.create', { repo: t.work, prompt, agentIds: [writer, broken], judge: { agentId: judge, criteria: 'most lines added' } });
    expect(created.judge).toMatchObject({ agentId: judge, criteria: 'most lines added', sessionId: null, verdict: null });

    const judged = await t.rec.until(() => t!.rec.of('compare.changed').find((c: Compare) => c.id === created.id && c.judge?.endedAt), 'the verdict');
    const [run1, run2] = judged.runs;
    expect(judged.judge!.error).toBeNull();
    expect(judged.judge!.verdict).toContain('Run 1 (Writer) adds 3 lines.');
    expect(judged.judge!.scores).toEqual([
      { runId: run1!.id, score: 3 },
      { runId: run2!.id, score: 0 },
    ]);
    // The judge read each run's last message and diff, and the failed run's reason.
    const judgePrompt = (await t.call('sessions.state', { sessionId: judged.judge!.sessionId! })).thread.entries.find((e) => e.kind === 'user_message');
    const asked = JSON.stringify(judgePrompt);
    expect(asked).toContain('wrote a.txt');
    expect(asked).toContain('+two');
    expect(asked).toContain('most lines added');
    expect(asked).toMatch(/## Run 2: Broken\\n[^\\]*failed: could not start/);

    const { html, fileName } = await t.call('compare.export', { compareId: created.id });
    expect(fileName).toBe(`comparison-${created.id}.html`);
    expect(html).toContain('Run 1 (Writer) adds 3 lines.');
    expect(html).toContain('&#60;script&#62;fetch(&#39;http://127.0.0.1:9/script&#39;)&#60;/script&#62;');
    expect(html).toContain('<td>3/10</td>');
    // Markup only of its own: no script element, nothing to load (the runs' tags are text).
    expect(html).not.toMatch(/<(script|img|iframe|link|object|embed|base)\b/i);
    expect(html).toContain('&#60;img src=x onerror=&#34;fetch(');
    expect(html).toContain(`Content-Security-Policy" content="default-src 'none'`);
  });

  it('a judge named after the runs ended starts at once; an unknown judge agent is refused', async () => {
    t = await makeCore();
    initRepo(t.work);
    const writer = await t.addAgent({}, 'Writer');
    const judge = await t.addAgent({ SCENARIO_JUDGE_REPLY: 'Both fine.\nRun 1: 7/10' }, 'Judge');
    const created = await t.call('compare.create', { repo: t.work, prompt: 'say done', agentIds: [writer] });
    await t.rec.until(() => t!.rec.of('compare.changed').find((c: Compare) => c.id === created.id && c.runs[0]!.endedAt), 'the run to end');
    expect((await t.callError('compare.judge', { compareId: created.id, judge: { agentId: 'nobody', criteria: '' } })).code).toBe('not_found');
    await t.call('compare.judge', { compareId: created.id, judge: { agentId: judge, criteria: '' } });
    const judged = await t.rec.until(() => t!.rec.of('compare.changed').find((c: Compare) => c.id === created.id && c.judge?.endedAt), 'the verdict');
    expect(judged.judge).toMatchObject({ verdict: 'Both fine.\nRun 1: 7/10', scores: [{ runId: created.runs[0]!.id, score: 7 }], error: null });
  });
});
