import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageText } from '../../../src/shared/acp-thread';
import { readMessages } from '../../../src/main/core/store/message-log';
import { makeCore, promptAndWait, type TestCore } from './helpers';

/**
 * Issue 14, bug 2: a session/load replay is recognised by its content against the stored conversation,
 * not by when it arrives, so it is neither shown nor stored (nor indexed) a second time.
 */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

/** Sent by the agent after its replay: genuinely new, and the sign that the replay is over. */
const NEW = 'Welcome back, quokkanew.';

async function thread(sessionId: string): Promise<string[]> {
  return (await t.call('sessions.state', { sessionId })).thread.entries.flatMap((e) =>
    e.kind === 'user_message' || e.kind === 'agent_message' ? [`${e.kind}: ${messageText(e.parts)}`] : [],
  );
}

/** How many stored session/update lines of the session carry `text`. */
function storedUpdates(sessionId: string, text: string): number {
  return readMessages(t.core.store.db, sessionId).filter((m) => m.direction === 'a2c' && m.method === 'session/update' && m.body.includes(text)).length;
}

async function searchHits(sessionId: string, query: string): Promise<string[]> {
  const { hits } = await t.call('history.search', { query, sessionId, perSession: 50, limit: 200 });
  return hits.map((h) => h.kind).sort();
}

async function reopenTwice(env: Record<string, string>) {
  const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession,close', SCENARIO_STORE: join(t.work, '..', 'agent-store.json'), SCENARIO_LOAD_NEW: NEW, ...env });
  const s = await t.call('sessions.create', { agentId, cwd: t.work });
  await promptAndWait(t, s.id, 'say zebracorn answer one');
  await promptAndWait(t, s.id, 'say okapiword answer two');
  const before = await thread(s.id);
  for (let i = 1; i <= 2; i++) {
    await t.call('sessions.close', { sessionId: s.id });
    await t.call('sessions.reopen', { sessionId: s.id });
    // The new message comes after the replay: once it is shown, the whole replay has been handled.
    await waitForNew(s.id, i);
  }
  return { id: s.id, before };
}

async function waitForNew(sessionId: string, times: number): Promise<void> {
  await t.rec.until(
    () =>
      t.rec
        .updates()
        .filter((u) => u.sessionId === sessionId && u.event.type === 'update' && u.event.update.sessionUpdate === 'agent_message_chunk')
        .filter((u) => u.event.type === 'update' && u.event.update.sessionUpdate === 'agent_message_chunk' && u.event.update.content.type === 'text' && u.event.update.content.text.startsWith(NEW))
        .length >= times,
    `the new message after replay ${times}`,
  );
}

describe.each([
  ['before its answer', { SCENARIO_LOAD_ORDER: 'before' }],
  ['after its answer (Gemini CLI 0.61)', { SCENARIO_LOAD_ORDER: 'after' }],
  ['interleaved with its answer', { SCENARIO_LOAD_ORDER: 'interleave' }],
  ['after its answer, with message ids', { SCENARIO_LOAD_ORDER: 'after', SCENARIO_MESSAGE_IDS: '1' }],
])('a session/load replay sent %s', (_name, env) => {
  it('is shown, stored and indexed once; the updates after it are kept', async () => {
    const { id, before } = await reopenTwice(env);
    expect(before).toEqual([
      'user_message: say zebracorn answer one',
      'agent_message: zebracorn answer one',
      'user_message: say okapiword answer two',
      'agent_message: okapiword answer two',
    ]);
    const after = await thread(id);
    expect(after.slice(0, 3)).toEqual(before.slice(0, 3));
    // The new message joins the last answer (no messageId) or follows it: either way, once per reopen.
    expect(after.join('\n').split('agent_message: okapiword answer two').length - 1).toBe(1);
    expect(after.join('\n').split(NEW).length - 1).toBe(2);
    expect(storedUpdates(id, 'zebracorn answer one')).toBe(1);
    expect(storedUpdates(id, 'okapiword answer two')).toBe(1);
    expect(storedUpdates(id, NEW)).toBe(2);
    expect(await searchHits(id, 'zebracorn')).toEqual(['agent', 'prompt']);
    expect(await searchHits(id, 'okapiword')).toEqual(['agent', 'prompt']);
    // A later turn works as usual.
    await promptAndWait(t, id, 'say zebracorn again');
    expect(await searchHits(id, 'zebracorn')).toEqual(['agent', 'agent', 'prompt', 'prompt']);
  });
});

describe('message ids', () => {
  it('are kept on thread entries, live and when the stored session is reopened', async () => {
    const { id } = await reopenTwice({ SCENARIO_LOAD_ORDER: 'after', SCENARIO_MESSAGE_IDS: '1' });
    const ids = (await t.call('sessions.state', { sessionId: id })).thread.entries.flatMap((e) => (e.kind === 'agent_message' ? [e.messageId] : []));
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(ids.slice(0, 2).every((m) => typeof m === 'string' && m.startsWith('msg-'))).toBe(true);
    expect(new Set(ids.slice(0, 2)).size).toBe(2);
  });
});
