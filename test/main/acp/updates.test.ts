import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThreadEvent } from '../../../src/shared/acp-thread';
import { readMessages } from '../../../src/main/core/store/message-log';
import { makeCore, promptAndWait, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

describe('session updates', () => {
  it('delivers every update kind in wire order, each stored before its event', async () => {
    const agentId = await t.addAgent();
    const session = await t.call('sessions.create', { agentId, cwd: t.work });
    // A second connection sees only committed data: every update event must find its row there.
    const reader = new Database(join(t.dataDir, 'switchboard.db'), { readonly: true });
    // (A row may hold a run of consecutive updates: seq … seq + n - 1.)
    const stmt = reader.prepare('SELECT body FROM acp_messages WHERE session_id = ? AND seq <= ? AND seq + n > ?');
    const missing: number[] = [];
    const seen: Array<{ seq: number; kind: string }> = [];
    t.core.bus.connect((name, payload) => {
      if (name !== 'session.update') return;
      const batch = payload as { sessionId: string; events: Array<{ seq: number | null; event: ThreadEvent; merged?: number }> };
      for (const p of batch.events) {
        if (p.event.type !== 'update') continue;
        if (p.seq === null || !stmt.get(batch.sessionId, p.seq, p.seq)) missing.push(p.seq ?? -1);
        const u = p.event.update;
        // The agent's own announcement after session/new (on a timer: it may land anywhere).
        if (u.sessionUpdate === 'available_commands_update' && u.availableCommands[0]?.name === 'hello') continue;
        // Consecutive chunks of one message that arrive together are joined into one event (`merged`).
        for (let i = 0; i < (p.merged ?? 1); i++) seen.push({ seq: p.seq ?? -1, kind: u.sessionUpdate });
      }
    });
    try {
      const end = await promptAndWait(t, session.id, 'updates');
      expect(end.stopReason).toBe('end_turn');
      expect(missing).toEqual([]);
      expect(seen.map((s) => s.kind)).toEqual([
        'user_message_chunk',
        'agent_thought_chunk',
        'agent_message_chunk',
        'agent_message_chunk',
        'tool_call',
        'tool_call_update',
        'plan',
        'available_commands_update',
        'current_mode_update',
        'config_option_update',
        'session_info_update',
        'usage_update',
        'agent_message_chunk',
      ]);
      // Event order is wire order: the sequence numbers only grow.
      const seqs = seen.map((s) => s.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);

      // The log has both directions of the conversation in order.
      const rows = readMessages(reader, session.id).map(({ direction, method }) => ({ direction, method }));
      expect(rows[0]).toEqual({ direction: 'c2a', method: 'session/new' });
      expect(rows[1]).toEqual({ direction: 'a2c', method: null });
      expect(rows.some((r) => r.direction === 'c2a' && r.method === 'session/prompt')).toBe(true);
      expect(rows.at(-1)).toEqual({ direction: 'a2c', method: null });
      // initialize has no session: it went to the agent log.
      const log = await t.call('agents.log', { agentId });
      expect(log.text).toContain('"method":"initialize"');

      // A view attaching now gets the folded thread.
      const state = await t.call('sessions.state', { sessionId: session.id });
      const thread = state.thread;
      expect(thread.title).toBe('Scenario title');
      expect(thread.usage).toEqual({ used: 1200, size: 200000, cost: { amount: 0.01, currency: 'USD' } });
      expect(thread.modes?.currentModeId).toBe('code');
      expect(thread.configOptions.map((o) => o.id)).toEqual(['mode', 'model', 'think']);
      expect(thread.commands.map((c) => c.name)).toEqual(['test']);
      expect(thread.plan?.map((p) => p.content)).toEqual(['Step one', 'Step two']);
      const kindsInThread = thread.entries.map((e) => e.kind);
      expect(kindsInThread).toEqual(['user_message', 'user_message', 'thought', 'agent_message', 'tool_call', 'plan', 'agent_message']);
      const agentMsg = thread.entries[3]!;
      expect(agentMsg.kind === 'agent_message' && agentMsg.parts).toEqual([{ type: 'text', text: 'Part one, part two.' }]);
      const tool = thread.entries[4]!;
      expect(tool.kind === 'tool_call' && tool.status).toBe('completed');
      expect(state.n).toBe(t.rec.updates().filter((p) => p.sessionId === session.id).length);
      // The title reached the sessions table and the session state.
      expect((reader.prepare('SELECT title FROM sessions WHERE id = ?').get(session.id) as { title: string }).title).toBe('Scenario title');
      expect(t.rec.of('session.state').at(-1)?.title).toBe('Scenario title');
    } finally {
      reader.close();
    }
  });

  it('a view attaching to a long thread gets its tail, and earlier entries page by page', async () => {
    const agentId = await t.addAgent();
    const session = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, session.id, 'long-thread 1000 lt');
    const whole = (await t.call('sessions.state', { sessionId: session.id })).thread;
    expect(whole.entries).toHaveLength(1001);

    const state = await t.call('sessions.state', { sessionId: session.id, tail: 50 });
    expect(state.thread.firstIndex).toBe(951);
    expect(state.thread.entries).toEqual(whole.entries.slice(951));
    // The tail's tool calls only; the whole index comes from sessions.toolIndex.
    const tailTools = Object.fromEntries(Object.entries(whole.toolIndex).filter(([, i]) => i >= 951));
    expect(Object.keys(tailTools).length).toBeGreaterThan(0);
    expect(state.thread.toolIndex).toEqual(tailTools);
    expect(await t.call('sessions.toolIndex', { sessionId: session.id })).toEqual({ toolIndex: whole.toolIndex, n: state.n });
    expect(Object.keys(whole.toolIndex).length).toBeGreaterThan(Object.keys(tailTools).length);
    const last = state.thread.entries.at(-1)!;
    expect(last.kind === 'agent_message' && last.parts).toEqual([{ type: 'text', text: 'lt/999: last message of the long thread' }]);

    const page = await t.call('sessions.entries', { sessionId: session.id, from: 0, count: 200 });
    expect(page).toEqual({ from: 0, entries: whole.entries.slice(0, 200), total: 1001, n: state.n });
    const end = await t.call('sessions.entries', { sessionId: session.id, from: 900, count: 200 });
    expect(end.entries).toEqual(whole.entries.slice(900));
    await expect(t.callError('sessions.entries', { sessionId: session.id, from: 0, count: 100_000 })).resolves.toMatchObject({ code: 'invalid_params' });
  });
});
