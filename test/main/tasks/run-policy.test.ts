import { afterEach, describe, expect, it } from 'vitest';
import { eventually, makeCore, type TestCore } from '../acp/helpers';

/** A run's permission policy answers what it may while nobody watches (once, never "always"), and each answer is kept. */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

describe("a run's permission policy", () => {
  it('"reads" allows a read once and refuses a command; "ask" leaves the request waiting', async () => {
    t = await makeCore();
    const agentId = await t.addAgent();
    const task = await t.call('tasks.save', { task: { name: 'careful', prompts: ['permission read', 'permission execute'], agentId, folder: t.work, policy: 'reads' } });
    const { id } = await t.call('tasks.enqueue', { taskId: task.id });
    const done = await eventually(async () => (await t!.call('tasks.runs', { inbox: true })).runs.find((r) => r.id === id && r.state === 'done'), 'the run to end', 20_000);
    expect(done.answers.map((a) => [a.tool, a.allowed])).toEqual([
      ['Do a read thing', true],
      ['Do a execute thing', false],
    ]);
    expect(done.lastMessage).toBe('permission: selected nope');
    // No rule was stored: an "always" answer is never given for the user.
    expect((await t.call('permissionRules.list', {})).rules).toHaveLength(0);

    const asking = await t.call('tasks.save', { task: { name: 'asks', prompts: ['permission read'], agentId, folder: t.work } });
    const second = await t.call('tasks.enqueue', { taskId: asking.id });
    const waiting = await eventually(async () => (await t!.call('tasks.runs', { inbox: false })).runs.find((r) => r.id === second.id && r.sessionId), 'started', 20_000);
    await t.rec.until(() => t!.rec.of('session.permission').some((p) => p.sessionId === waiting.sessionId), 'the request to wait for the user');
    expect((await t.call('sessions.state', { sessionId: waiting.sessionId! })).session.status).toBe('awaiting_permission');
    // It waits in the Inbox while it runs.
    await eventually(async () => (await t!.call('tasks.runs', { inbox: true })).runs.some((r) => r.id === second.id && r.state === 'running'), 'in the Inbox', 10_000);
  });
});
