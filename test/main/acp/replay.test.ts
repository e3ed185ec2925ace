import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageText } from '../../../src/shared/acp-thread';
import { readMessages } from '../../../src/main/core/store/message-log';
import { eventually, makeCore, promptAndWait, turnEnd, type TestCore } from './helpers';

/**
 * Issue 14, bug 2, and issue 36: a session/load replay is neither shown nor stored (nor indexed) a second
 * time, whenever it arrives (before or after the load's answer) and whatever the agent wraps around the
 * stored messages (Gemini CLI 0.61: its `<session_context>` preamble, "[Function Response: …]" user messages).
 */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

async function thread(sessionId: string): Promise<string[]> {
  return (await t.call('sessions.state', { sessionId })).thread.entries.flatMap((e) =>
    e.kind === 'user_message' || e.kind === 'agent_message' || e.kind === 'thought' || e.kind === 'tool_call'
      ? [`${e.kind}: ${e.kind === 'tool_call' ? e.toolCallId : messageText(e.parts)}`]
      : [],
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

/**
 * Two prompts, then twice: closed, reopened (session/load), and a new prompt. The agent writes its replay
 * before it reads that prompt, so once the prompt's turn has ended the whole replay has been handled.
 */
async function reopenTwice(env: Record<string, string>) {
  const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession,close', SCENARIO_STORE: join(t.work, '..', 'agent-store.json'), ...env });
  const s = await t.call('sessions.create', { agentId, cwd: t.work });
  await promptAndWait(t, s.id, 'say zebracorn answer one');
  await promptAndWait(t, s.id, 'say okapiword answer two');
  const before = await thread(s.id);
  for (let i = 1; i <= 2; i++) {
    await t.call('sessions.close', { sessionId: s.id });
    await t.call('sessions.reopen', { sessionId: s.id });
    await promptAndWait(t, s.id, `say quokkanew${i}`);
  }
  return { id: s.id, before };
}

const EXPECTED = [
  'user_message: say zebracorn answer one',
  'agent_message: zebracorn answer one',
  'user_message: say okapiword answer two',
  'agent_message: okapiword answer two',
];

describe.each([
  ['before its answer', { SCENARIO_LOAD_ORDER: 'before' }],
  ['after its answer (Gemini CLI 0.61)', { SCENARIO_LOAD_ORDER: 'after' }],
  ['interleaved with its answer', { SCENARIO_LOAD_ORDER: 'interleave' }],
  ['after its answer, with message ids', { SCENARIO_LOAD_ORDER: 'after', SCENARIO_MESSAGE_IDS: '1' }],
  ['after its answer, wrapped in a preamble, function responses, thoughts and tool calls (Gemini CLI 0.61)', { SCENARIO_LOAD_ORDER: 'after', SCENARIO_LOAD_WRAP: '1' }],
  ['before its answer, wrapped likewise', { SCENARIO_LOAD_ORDER: 'before', SCENARIO_LOAD_WRAP: '1' }],
  // The first prompt after a load waits for the replay to go quiet: sent at once, it reached the agent before its
  // late replay, and what the replay adds that the live turns never sent was taken for the new turn.
  ['150 ms after its answer, wrapped likewise', { SCENARIO_LOAD_ORDER: 'after', SCENARIO_LOAD_WRAP: '1', SCENARIO_LOAD_AFTER_MS: '150' }],
])('a session/load replay sent %s', (_name, env) => {
  it('is shown, stored and indexed once; the turns after it are kept', async () => {
    const { id, before } = await reopenTwice(env);
    expect(before).toEqual(EXPECTED);
    expect(await thread(id)).toEqual([...EXPECTED, 'user_message: say quokkanew1', 'agent_message: quokkanew1', 'user_message: say quokkanew2', 'agent_message: quokkanew2']);
    expect(storedUpdates(id, 'zebracorn answer one')).toBe(1);
    expect(storedUpdates(id, 'okapiword answer two')).toBe(1);
    expect(storedUpdates(id, 'quokkanew1')).toBe(1);
    expect(storedUpdates(id, 'session_context')).toBe(0);
    expect(storedUpdates(id, 'Function Response')).toBe(0);
    expect(await searchHits(id, 'zebracorn')).toEqual(['agent', 'prompt']);
    expect(await searchHits(id, 'okapiword')).toEqual(['agent', 'prompt']);
    expect(await searchHits(id, 'quokkanew1')).toEqual(['agent', 'prompt']);
    // A later turn works as usual.
    await promptAndWait(t, id, 'say zebracorn again');
    expect(await searchHits(id, 'zebracorn')).toEqual(['agent', 'agent', 'prompt', 'prompt']);
  });
});

describe('a prompt queued while the session loads', () => {
  it('is sent once the load is answered, while the replay may still come: its turn is shown once, the replay not at all', async () => {
    const gate = join(t.work, '..', 'load-gate');
    const agentId = await t.addAgent({
      SCENARIO_CAPS: 'loadSession,close',
      SCENARIO_STORE: join(t.work, '..', 'agent-store.json'),
      SCENARIO_LOAD_ORDER: 'after',
      SCENARIO_LOAD_WRAP: '1',
      SCENARIO_LOAD_GATE: gate,
    });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'say zebracorn answer one');
    await promptAndWait(t, s.id, 'say okapiword answer two');
    await t.call('sessions.close', { sessionId: s.id });
    const reopened = t.call('sessions.reopen', { sessionId: s.id });
    // The load waits for the gate: the prompt is queued, and sent as soon as the load is answered.
    await eventually(() => t.call('sessions.state', { sessionId: s.id }).then((st) => st.session.status === 'starting', () => false), 'the load to start');
    const { promptId, queued } = await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'say quokkaqueued' }] });
    expect(queued).toBe(true);
    writeFileSync(gate, '');
    await reopened;
    await turnEnd(t, s.id, promptId);
    expect(await thread(s.id)).toEqual([...EXPECTED, 'user_message: say quokkaqueued', 'agent_message: quokkaqueued']);
    expect(storedUpdates(s.id, 'zebracorn answer one')).toBe(1);
    expect(storedUpdates(s.id, 'session_context')).toBe(0);
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
