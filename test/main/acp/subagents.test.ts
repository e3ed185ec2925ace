import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubagentEntry, ThreadEntry } from '../../../src/shared/acp-thread';
import { agentText, eventually, makeCore, promptAndWait, turnEnd, type TestCore } from './helpers';

/** ACP subagent sessions (issue 42): children the agent announces with subagent_update, shown under their parent. */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const subagentsOf = (entries: readonly ThreadEntry[]) => entries.filter((e): e is SubagentEntry => e.kind === 'subagent');
const childOf = async (parentId: string) => eventually(async () => (await t.call('sessions.live', {})).sessions.find((s) => s.subagent?.parentId === parentId), 'the child session');

describe('ACP subagent sessions', () => {
  it('advertises the subagents client capability', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, s.id, 'client-caps');
    expect(JSON.parse(agentText(t.rec, s.id).replace('client capabilities: ', '')).subagents).toEqual({});
  });

  it('shows a child under the tool call that started it, with its own thread, ended when the agent ends it; stored and searchable', async () => {
    const agentId = await t.addAgent();
    const parent = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const end = await promptAndWait(t, parent.id, 'subagent');
    expect(end.stopReason).toBe('end_turn');

    const { thread } = await t.call('sessions.state', { sessionId: parent.id });
    const [entry] = subagentsOf(thread.entries);
    expect(entry).toMatchObject({ title: 'Test writer', description: 'general-purpose', state: 'idle', stopReason: 'end_turn', canCancel: true, startedBy: 'task-1' });
    // Under the tool call that started it: the next entry after the Task call.
    const taskIndex = thread.entries.findIndex((e) => e.kind === 'tool_call' && e.toolCallId === 'task-1');
    expect(thread.entries[taskIndex + 1]).toBe(entry);
    const messages = thread.entries.filter((e) => e.kind === 'session_message');
    expect(messages.map((m) => m.kind === 'session_message' && m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''))).toEqual(['Write the tests for parser.ts', 'Wrote 3 tests.']);

    // The child is a session of its own, linked to its parent, ended (idle), with its own thread.
    const child = await childOf(parent.id);
    expect(child).toMatchObject({ acpSessionId: entry!.childId, title: 'Test writer', status: 'idle', subagent: { parentId: parent.id, canCancel: true } });
    const childState = await t.call('sessions.state', { sessionId: child.id });
    expect(childState.thread.entries.map((e) => e.kind)).toEqual(['agent_message', 'tool_call', 'agent_message']);
    expect(agentText(t.rec, child.id)).toBe('Child started: reading parser.ts. Child done: wrote 3 tests (zebra-quartz).');
    // Nothing of the child leaked into the parent's thread.
    expect(agentText(t.rec, parent.id)).toBe('Subagent finished.');
    // A child takes its work from its parent, not from the user.
    expect((await t.callError('sessions.prompt', { sessionId: child.id, prompt: [{ type: 'text', text: 'hi' }] })).message).toMatch(/subagent/);

    // Stored linked to its parent; history search finds the child's text.
    await eventually(async () => (await t.call('history.search', { query: 'zebra-quartz' })).hits.some((h) => h.sessionId === child.id), 'search to find the child');
    const db = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
    const row = db.prepare('SELECT subagent_of, acp_session_id FROM sessions WHERE id = ?').get(child.id) as { subagent_of: string; acp_session_id: string };
    db.close();
    expect(row).toEqual({ subagent_of: parent.id, acp_session_id: entry!.childId });
  });

  it("a parent's cancel ends its working child's display; a child is cancelled alone when the agent allows it", async () => {
    const agentId = await t.addAgent();
    const parent = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const first = await t.call('sessions.prompt', { sessionId: parent.id, prompt: [{ type: 'text', text: 'subagent hold' }] });
    const child = await childOf(parent.id);
    await eventually(() => agentText(t.rec, child.id).includes('Child started'), 'the child to stream');
    expect((await t.call('sessions.state', { sessionId: child.id })).session.status).toBe('working');

    // The child alone: session/cancel names the child; the agent ends it, the parent goes on.
    await t.call('sessions.cancel', { sessionId: child.id, clearQueue: false });
    // (The scenario agent ends the child as cancelled only on a session/cancel naming the child.)
    expect((await turnEnd(t, parent.id, first.promptId)).stopReason).toBe('end_turn');
    const after = await t.call('sessions.state', { sessionId: parent.id });
    expect(subagentsOf(after.thread.entries)[0]).toMatchObject({ state: 'idle', stopReason: 'cancelled' });
    expect((await t.call('sessions.state', { sessionId: child.id })).session.status).toBe('idle');

    // The parent's cancel: its working child is shown ended at once.
    const second = await t.call('sessions.prompt', { sessionId: parent.id, prompt: [{ type: 'text', text: 'subagent hold' }] });
    const second_child = await eventually(async () => (await t.call('sessions.live', {})).sessions.find((s) => s.subagent?.parentId === parent.id && s.id !== child.id && s.status === 'working'), 'the second child');
    await t.call('sessions.cancel', { sessionId: parent.id, clearQueue: false });
    const cancelled = await t.call('sessions.state', { sessionId: parent.id });
    expect(subagentsOf(cancelled.thread.entries)[1]).toMatchObject({ endedByParent: true });
    expect((await t.call('sessions.state', { sessionId: second_child.id })).session.status).toBe('idle');
    await turnEnd(t, parent.id, second.promptId);

    // Closing the parent closes its children.
    await t.call('sessions.close', { sessionId: parent.id });
    expect((await t.call('sessions.live', {})).sessions.filter((s) => s.subagent?.parentId === parent.id)).toEqual([]);
  });

  it("asks the user a child's permission in the child, and sanitizes what the agent calls it", async () => {
    const agentId = await t.addAgent();
    const parent = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const { promptId } = await t.call('sessions.prompt', { sessionId: parent.id, prompt: [{ type: 'text', text: 'subagent permission' }] });
    const child = await childOf(parent.id);
    const ask = await eventually(async () => (await t.call('sessions.state', { sessionId: child.id })).permissions[0], "the child's permission request");
    expect((await t.call('sessions.state', { sessionId: child.id })).session.status).toBe('awaiting_permission');
    await t.call('sessions.respondPermission', { sessionId: child.id, requestId: ask.requestId, outcome: 'selected', optionId: 'allow' });
    await turnEnd(t, parent.id, promptId);
    expect(agentText(t.rec, child.id)).toContain('permission: allow');

    await promptAndWait(t, parent.id, 'subagent spoof');
    const entries = subagentsOf((await t.call('sessions.state', { sessionId: parent.id })).thread.entries);
    const title = entries[1]!.title!;
    expect(title.length).toBeLessThanOrEqual(200);
    expect(title).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(title.startsWith('Test writer')).toBe(true);
  });
});
