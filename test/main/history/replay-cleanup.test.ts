import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { openDatabase } from '../../../src/main/core/store/database';
import { MessageLog, readMessages } from '../../../src/main/core/store/message-log';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { Recorder } from '../acp/helpers';

/**
 * Issue 14, bug 2, and issue 36: sessions an earlier version polluted (a load's replay that came after the
 * answer, or after the preamble Gemini CLI 0.61 wraps around it, was stored again) are cleaned when the app
 * starts after migration 0022: the duplicate run is removed from the stored log, and the history index is
 * rebuilt without it. The turn after it is kept.
 */

let root: string;
let core: AppCore | null = null;
afterEach(async () => {
  await core?.dispose();
  core = null;
  rmSync(root, { recursive: true, force: true });
});

async function call<T>(method: string, params: unknown): Promise<T> {
  const r = await core!.router.invoke(method as never, params as never);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.value as T;
}

it('removes a stored replay duplicate on upgrade, keeps what was new, and rebuilds history', async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-replay-clean-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  core = new AppCore({ dataDir, transport: 'browser', version: 'test' });
  const rec = new Recorder();
  core.bus.connect((name, payload) => rec.push(name, payload));
  const { command, args } = scenarioAgentCommand();
  const agent = await call<{ id: string }>('agents.addCustom', { name: 'Scenario', command, args, env: {}, cwd: work });
  const s = await call<{ id: string; acpSessionId: string }>('sessions.create', { agentId: agent.id, cwd: work });
  for (const text of ['say zebracorn answer one', 'say okapiword answer two']) {
    const { promptId } = await call<{ promptId: string }>('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text }] });
    await rec.until(() => rec.updates().some((u) => u.event.type === 'turn_end' && u.event.promptId === promptId), 'the turn');
  }
  await call('sessions.close', { sessionId: s.id });
  await core.dispose();
  core = null;

  // What an earlier version stored for a reopen by an agent that replays after its answer.
  const db = openDatabase(join(dataDir, 'switchboard.db'));
  const acp = s.acpSessionId;
  const update = (u: unknown) => ({ sessionId: s.id, direction: 'a2c' as const, method: 'session/update', body: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: acp, update: u } }) });
  const chunk = (kind: string, text: string) => update({ sessionUpdate: kind, content: { type: 'text', text } });
  const before = readMessages(db, s.id).length;
  new MessageLog(db).appendMany([
    { sessionId: s.id, direction: 'c2a', method: 'session/load', body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'session/load', params: { sessionId: acp, cwd: work, mcpServers: [] } }) },
    { sessionId: s.id, direction: 'a2c', method: null, body: JSON.stringify({ jsonrpc: '2.0', id: 99, result: {} }) },
    // Gemini CLI 0.61 wraps its replay: its preamble, and tool results as user messages.
    chunk('user_message_chunk', '<session_context>\nThis is the Gemini CLI.\n</session_context>'),
    chunk('user_message_chunk', 'say zebracorn answer one'),
    chunk('agent_message_chunk', 'zebracorn '),
    chunk('agent_message_chunk', 'answer one'),
    chunk('user_message_chunk', '[Function Response: run_shell_command]'),
    update({ sessionUpdate: 'available_commands_update', availableCommands: [] }),
    chunk('user_message_chunk', 'say okapiword answer two'),
    chunk('agent_message_chunk', 'okapiword answer two'),
    { sessionId: s.id, direction: 'c2a', method: 'session/prompt', body: JSON.stringify({ jsonrpc: '2.0', id: 100, method: 'session/prompt', params: { sessionId: acp, prompt: [{ type: 'text', text: 'and now?' }] } }) },
    chunk('agent_message_chunk', 'Welcome back, quokkanew.'),
  ]);
  expect(readMessages(db, s.id).length).toBe(before + 12);
  // Migration 0022 as it runs on such a store (later migrations are not undone: running it again is enough).
  db.exec(readFileSync(new URL('../../../src/main/core/store/migrations/0022_replay_cleanup_wrapped.sql', import.meta.url), 'utf8'));
  db.close();

  core = new AppCore({ dataDir, transport: 'browser', version: 'test' });
  await core.history.whenIndexed();
  const stored = readMessages(core.store.db, s.id);
  // Kept: the load, its answer, the four replayed messages, the prompt and its reply, and the mark of that prompt,
  // which had no answer when the last Switchboard stopped (cut short).
  expect(stored.length).toBe(before + 6);
  expect(stored.at(-1)?.body).toContain('switchboard/cutShort');
  expect(stored.some((m) => m.body.includes('session_context') || m.body.includes('Function Response'))).toBe(false);
  const updates = stored.filter((m) => m.method === 'session/update' || m.method === 'session/prompt').map((m) => m.body);
  for (const text of ['"say zebracorn answer one"', '"zebracorn answer one"', '"say okapiword answer two"', '"okapiword answer two"']) {
    expect(updates.filter((b) => b.includes(text)).length, text).toBe(1);
  }
  expect(updates.filter((b) => b.includes('quokkanew')).length).toBe(1);
  expect(updates.filter((b) => b.includes('available_commands_update')).length).toBeGreaterThanOrEqual(1);
  expect(core.store.db.prepare('SELECT count(*) AS n FROM replay_cleanup').get()).toEqual({ n: 0 });

  const { hits } = await call<{ hits: Array<{ kind: string }> }>('history.search', { query: 'zebracorn', sessionId: s.id, perSession: 50 });
  expect(hits.map((h) => h.kind).sort()).toEqual(['agent', 'prompt']);
  const quokka = await call<{ hits: unknown[] }>('history.search', { query: 'quokkanew', sessionId: s.id, perSession: 50 });
  expect(quokka.hits.length).toBe(1);
  const { entries } = await call<{ entries: Array<{ kind: string; text?: string }> }>('history.entries', { sessionId: s.id });
  expect(entries.filter((e) => e.kind === 'prompt').length).toBe(3);
});
