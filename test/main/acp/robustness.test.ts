import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LineSplitter, type SplitItem } from '../../../src/main/core/acp/connection/line-splitter';
import { agentText, eventually, makeCore, promptAndWait, type TestCore } from './helpers';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const warnings = (kind: string) => t.rec.of('session.warning').filter((w) => w.kind === kind);

describe('misbehaving agents', () => {
  it('skips malformed lines, unknown and invalid update kinds with a warning; the session goes on', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await promptAndWait(t, s.id, 'malformed')).stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toContain('after malformed');
    expect(warnings('malformed_line').length).toBe(2);
    expect(warnings('malformed_line')[0]!.message).toContain('this is not json');

    expect((await promptAndWait(t, s.id, 'unknown-update')).stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toContain('after unknown update');
    expect(warnings('unknown_update')).toMatchObject([{ sessionId: s.id, agentId }]);
    expect(warnings('unknown_update')[0]!.message).toContain('mystery_kind');

    expect((await promptAndWait(t, s.id, 'invalid-update')).stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toContain('after invalid update');
    expect(warnings('invalid_update')[0]!.message).toMatch(/agent_message_chunk.*content/);
    // Nothing of the bad updates reached the thread; all of it is in the agent log.
    const state = await t.call('sessions.state', { sessionId: s.id });
    expect(JSON.stringify(state.thread)).not.toContain('mystery_kind');
    const log = await t.call('agents.log', { agentId });
    expect(log.text).toContain('this is not json{');
    expect(log.text).toContain('mystery_kind');
  });

  it('an update the live thread refused is left out of history, search and a reopened thread too (one input, one fold)', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'loadSession' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await promptAndWait(t, s.id, 'invalid-visible')).stopReason).toBe('end_turn');
    expect(warnings('invalid_update')[0]!.message).toMatch(/agent_message_chunk/);
    expect(JSON.stringify((await t.call('sessions.state', { sessionId: s.id })).thread)).not.toContain('ghostly');

    const hits = async (query: string) => (await t.call('history.search', { query, limit: 20, perSession: 3 })).hits;
    await eventually(async () => (await hits('visible')).length > 0, 'the turn to be indexed');
    expect(await hits('ghostly')).toEqual([]);
    const stored = await t.call('history.entries', { sessionId: s.id, limit: 100 });
    expect(JSON.stringify(stored)).toContain('after invalid visible');
    expect(JSON.stringify(stored)).not.toContain('ghostly');

    await t.call('sessions.close', { sessionId: s.id });
    await t.call('sessions.reopen', { sessionId: s.id });
    const reopened = JSON.stringify((await t.call('sessions.state', { sessionId: s.id })).thread);
    expect(reopened).toContain('after invalid visible');
    expect(reopened).not.toContain('ghostly');
  });

  it('drops a 50 MB line with a warning, without buffering it, and carries on', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const end = await promptAndWait(t, s.id, 'huge 50', 120_000);
    expect(end.stopReason).toBe('end_turn');
    const w = warnings('oversized_line');
    expect(w).toHaveLength(1);
    // The session was named in the head of the line, so the warning goes to it.
    expect(w[0]).toMatchObject({ sessionId: s.id, agentId });
    expect(w[0]!.message).toMatch(/dropped a 5\d\.\d MB message \(session\/update\)/);
    expect(agentText(t.rec, s.id)).toBe('after huge');
    expect((await promptAndWait(t, s.id, 'hello')).stopReason).toBe('end_turn');
  }, 180_000);

  it('answers unknown requests with -32601 and ignores unknown notifications', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'unknown-request');
    const reply = JSON.parse(agentText(t.rec, s.id)) as { id: string; error: { code: number } };
    expect(reply.id).toMatch(/^raw-/);
    expect(reply.error.code).toBe(-32601);
    expect(warnings('unknown_request')[0]!.message).toContain('craft/drainMidTurnQueue');
    await eventually(async () => (await t.call('agents.log', { agentId })).text.includes('ignored notification from the agent: _scenario/custom_notification'), 'the notification in the log');
    expect((await promptAndWait(t, s.id, 'hello')).stopReason).toBe('end_turn');
  });

  it('treats tool_call and tool_call_update as upserts (trap 1)', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'tool-upsert');
    const tools = (await t.call('sessions.state', { sessionId: s.id })).thread.entries.filter((e) => e.kind === 'tool_call');
    expect(tools.map((e) => e.kind === 'tool_call' && [e.toolCallId, e.title, e.status, e.toolKind])).toEqual([
      ['ghost', 'Ghost tool', 'completed', 'other'],
      ['dup', 'Second', 'in_progress', 'search'],
    ]);
  });
});

describe('LineSplitter', () => {
  it('keeps memory bounded on an oversized line and recovers at the next newline', () => {
    const max = 1024 * 1024;
    const splitter = new LineSplitter(max);
    const out: SplitItem[] = [];
    splitter.push(Buffer.from('{"a":1}\n{"b":'), out);
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    let peak = 0;
    for (let i = 0; i < 50 * 16; i++) {
      splitter.push(chunk, out);
      peak = Math.max(peak, splitter.bufferedBytes);
    }
    splitter.push(Buffer.from('"}\n{"c":3}\n{"d"'), out);
    splitter.end(out);
    expect(peak).toBeLessThanOrEqual(max);
    expect(out.map((o) => (o.kind === 'line' ? o.text : `oversized:${o.size}:${o.head.slice(0, 6)}`))).toEqual([
      '{"a":1}',
      `oversized:${5 + 50 * 1024 * 1024 + 2}:{"b":x`,
      '{"c":3}',
      '{"d"',
    ]);
  });

  it('keeps a character split across chunks whole, and counts an oversized line in bytes, not characters', () => {
    const splitter = new LineSplitter(40);
    const out: SplitItem[] = [];
    const bytes = Buffer.from('{"t":"héllo → 日本"}\n');
    // Cut inside the multi-byte characters, one byte at a time.
    for (let i = 0; i < bytes.length; i++) splitter.push(bytes.subarray(i, i + 1), out);
    // 14 characters of 3 bytes each: 42 bytes > 40 (while 14 characters would fit).
    splitter.push(Buffer.from('日本語日本語日本語日本語日本\n{"ok":1}\r\n'), out);
    splitter.end(out);
    expect(out).toEqual([
      { kind: 'line', text: '{"t":"héllo → 日本"}' },
      { kind: 'oversized', size: 42, head: '日本語日本語日本語日本語日本' },
      { kind: 'line', text: '{"ok":1}\r' },
    ]);
  });
});
