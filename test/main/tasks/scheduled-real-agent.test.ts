import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../support/fake-clock';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index';
import { agentLaunch, createAgentHome, requireOrSkipAgent, type AgentHome } from '../../support/real-agents/index';
import { makeCore, type TestCore } from '../acp/helpers';
import type { TaskRun } from '../../../src/shared/contract/tasks';

/**
 * A scheduled task run by a real agent (Qwen Code, offline against the fake LLM) on the core's injectable
 * clock: nothing runs before its time; at 07:00 the run starts by itself, the agent writes its file, and the
 * run ends in the Inbox with the agent's last message.
 */

let t: TestCore | null = null;
let llm: FakeLlm | null = null;
let home: AgentHome | null = null;
afterEach(async () => {
  await t?.dispose();
  await llm?.close();
  home?.dispose();
  t = null;
  llm = null;
  home = null;
});

const hasQwen = requireOrSkipAgent('qwen');

describe('a scheduled task with a real agent', () => {
  it.skipIf(!hasQwen)('fires at its time on the clock, runs Qwen Code against the fake LLM, and ends in the Inbox', { timeout: 240_000 }, async () => {
    const clock = new FakeClock(Date.parse('2026-05-04T06:30:00Z'));
    t = await makeCore({ clock, timeZone: 'UTC' });
    llm = await startFakeLlm();
    home = createAgentHome('qwen');
    const launch = agentLaunch('qwen', { llmUrl: llm.url, home: home.home });
    const agent = await t.call('agents.addCustom', { name: 'Qwen Code', command: launch.command, args: launch.args, env: launch.env, cwd: t.work });
    const file = join(t.work, 'morning.md');
    const task = await t.call('tasks.save', {
      task: { name: 'Morning notes', prompts: [`Write the morning notes. <<write:${file}:# Morning notes\n>><<text:Wrote the morning notes.>>`], agentId: agent.id, folder: t.work, policy: 'edits', schedule: { kind: 'daily', at: '07:00' } },
    });
    expect(task.scheduleText).toBe('every day at 07:00');
    expect(new Date(task.nextRuns[0]!).toISOString()).toBe('2026-05-04T07:00:00.000Z');

    // Before its time: nothing.
    await clock.advance(29 * 60_000);
    expect((await t.call('tasks.runs', { inbox: false })).runs).toHaveLength(0);
    // 07:00: the run starts by itself, and ends in the Inbox.
    await clock.advance(60_000);
    const ended = await t.rec.until(() => t!.rec.of('tasks.run').find((r: TaskRun) => r.state === 'done' || r.state === 'failed'), 'the scheduled run to end', 180_000);
    expect(ended, `${ended.error ?? ''}\n${llm.requests().length} LLM requests`).toMatchObject({ state: 'done', trigger: 'schedule', name: 'Morning notes', inbox: 'open' });
    expect(ended.lastMessage).toContain('Wrote the morning notes.');
    expect(readFileSync(file, 'utf8')).toBe('# Morning notes\n');
    const inbox = (await t.call('tasks.runs', { inbox: true })).runs;
    expect(inbox.map((r) => r.id)).toEqual([ended.id]);
  });
});
