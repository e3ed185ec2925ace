import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentText, makeCore, turnEnd, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const text = (s: string) => [{ type: 'text' as const, text: s }];

describe('prompt queue', () => {
  it('queues prompts sent while working, lets the user edit the queue, and sends it in order when turns end', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const slow = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('slow') });
    expect(slow.queued).toBe(false);
    await t.rec.until(() => agentText(t.rec, s.id).includes('tick 1'), 'the slow turn to run');

    const a = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('hello') });
    const b = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('echo first') });
    expect([a.queued, b.queued]).toEqual([true, true]);
    expect((await t.call('sessions.queue.list', { sessionId: s.id })).items.map((i) => i.id)).toEqual([a.promptId, b.promptId]);

    await t.call('sessions.queue.update', { sessionId: s.id, itemId: b.promptId, prompt: text('echo changed') });
    await t.call('sessions.queue.move', { sessionId: s.id, itemId: b.promptId, toIndex: 0 });
    const c = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('hello') });
    const items = (await t.call('sessions.queue.remove', { sessionId: s.id, itemId: c.promptId })).items;
    expect(items.map((i) => [i.id, i.prompt])).toEqual([
      [b.promptId, text('echo changed')],
      [a.promptId, text('hello')],
    ]);
    expect(t.rec.of('session.queue').at(-1)?.items.map((i) => i.id)).toEqual([b.promptId, a.promptId]);
    expect((await t.callError('sessions.queue.remove', { sessionId: s.id, itemId: 'nope' })).code).toBe('not_found');

    // Cancel the running turn: the queue goes on by itself.
    await t.call('sessions.cancel', { sessionId: s.id });
    expect((await turnEnd(t, s.id, slow.promptId)).stopReason).toBe('cancelled');
    await turnEnd(t, s.id, b.promptId);
    await turnEnd(t, s.id, a.promptId);
    const prompts = t.rec
      .updates()
      .map((p) => p.event)
      .flatMap((e) => (e.type === 'prompt' ? [e.promptId] : []));
    expect(prompts).toEqual([slow.promptId, b.promptId, a.promptId]);
    expect(agentText(t.rec, s.id)).toContain('"text":"echo changed"');
    expect((await t.call('sessions.queue.list', { sessionId: s.id })).items).toEqual([]);
    expect((await t.call('sessions.state', { sessionId: s.id })).session.status).toBe('idle');
  });

  it('cancel can clear the queue', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const slow = await t.call('sessions.prompt', { sessionId: s.id, prompt: text('slow') });
    await t.rec.until(() => agentText(t.rec, s.id).includes('tick 1'), 'the slow turn to run');
    await t.call('sessions.prompt', { sessionId: s.id, prompt: text('hello') });
    await t.call('sessions.cancel', { sessionId: s.id, clearQueue: true });
    await turnEnd(t, s.id, slow.promptId);
    expect((await t.call('sessions.queue.list', { sessionId: s.id })).items).toEqual([]);
    // Tool calls of the cancelled turn are shown cancelled (the client marks them when it cancels).
    const state = await t.call('sessions.state', { sessionId: s.id });
    const tool = state.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool?.kind === 'tool_call' && tool.status).toBe('cancelled');
    expect(state.thread.turn).toMatchObject({ running: false, lastStopReason: 'cancelled' });
  });
});
