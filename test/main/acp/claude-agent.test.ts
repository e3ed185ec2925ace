// Claude Agent 0.101 (@agentclientprotocol/claude-agent-acp, bundling Claude Code 2.1.x) driven for real against
// the fake LLM, through the app's contract. Skipped unless installed: `node scripts/install-test-agents.mjs claude-agent`.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubagentEntry, ThreadEntry } from '../../../src/shared/acp-thread';
import type { LlmRequest } from '../../support/fake-llm/types';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index';
import { agentLaunch, createAgentHome, requireOrSkipAgent, type AgentHome } from '../../support/real-agents/index';
import { agentText, eventually, makeCore, promptAndWait, type TestCore } from './helpers';

/**
 * Issue 42: the model calls Claude Code's subagent tool (`Agent`, formerly `Task`). To a client that advertises
 * `clientCapabilities.subagents`, Claude Agent announces the child on the parent (`subagent_update` with the
 * child's session id, title = the tool's description, description = the subagent type, `state: running`), sends
 * the task as a `session_message` on both sessions, streams the child's own updates under the child's session
 * id (`_meta.claudeCode.parentToolUseId` = the Agent tool use), and ends it on the parent (`state: idle`).
 * Issue 40: it says its sign-in with its own `_auth/status_update` push (an API key from ANTHROPIC_API_KEY).
 */

const installed = requireOrSkipAgent('claude-agent');

const texts = (req: LlmRequest) => req.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));
const subagentsOf = (entries: readonly ThreadEntry[]) => entries.filter((e): e is SubagentEntry => e.kind === 'subagent');

describe.skipIf(!installed)('Claude Agent 0.101 (real agent, fake LLM)', { timeout: 180_000 }, () => {
  let root: string;
  let llm: FakeLlm;
  let home: AgentHome;
  let t: TestCore | null = null;

  beforeEach(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-claude-agent-')));
    llm = await startFakeLlm();
    home = createAgentHome('claude-agent');
  });
  afterEach(async () => {
    await t?.dispose();
    t = null;
    await llm?.close();
    home?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('shows the child it starts under its parent, streamed and ended, kept after a restart; and that it is signed in', async () => {
    // The parent delegates once; the child (whose conversation is only its task) answers; the parent answers the
    // tool result, then Claude Code's notice that its background agent finished.
    llm.addRule((req) => {
      const all = texts(req);
      if (all.some((x) => x.includes('[SUGGESTION MODE'))) return undefined;
      const parent = all.some((x) => x.includes('delegate to kiwi'));
      if (!parent) return all.some((x) => x.includes('kiwi-child-task')) ? { type: 'text', text: 'Child done: kiwi-child-result.' } : undefined;
      if (all.some((x) => x.includes('<task-notification'))) return { type: 'text', text: 'Parent heard back from kiwi.' };
      if (req.toolResults.length > 0) return { type: 'text', text: 'Parent done.' };
      return { type: 'tool_call', name: 'Agent', args: { description: 'Kiwi helper', prompt: 'Do the kiwi-child-task now', subagent_type: 'general-purpose' } };
    });
    const dataDir = join(root, 'data');
    t = await makeCore({ dataDir });
    const launch = agentLaunch('claude-agent', { llmUrl: llm.url, home: home.home });
    const agentId = (await t.call('agents.addCustom', { name: 'Claude Agent', command: launch.command, args: launch.args, env: launch.env, cwd: root })).id;
    const parent = await t.call('sessions.create', { agentId, cwd: root });
    // Its `auto` mode asks a safety classifier (a side call the fake cannot answer) and blocks the tool.
    await t.call('sessions.setMode', { sessionId: parent.id, modeId: 'default' });

    // Signed in, from its own word: the agent list shows the API key it uses.
    const agent = await eventually(async () => (await t!.call('agents.list', {})).agents.find((a) => a.id === agentId && a.status.auth), 'the sign-in status');
    expect(agent.status.auth).toMatchObject({ state: 'signed_in', accounts: [{ label: 'Anthropic API key', detail: 'ANTHROPIC_API_KEY', active: true }] });

    const end = await promptAndWait(t, parent.id, 'Please delegate to kiwi', 120_000);
    expect(end.error, llm.describeLog()).toBeNull();

    // The child under its parent: one entry in the parent's thread, ended.
    const child = await eventually(async () => (await t!.call('sessions.live', {})).sessions.find((s) => s.subagent?.parentId === parent.id), 'the child session');
    const [entry] = subagentsOf((await t.call('sessions.state', { sessionId: parent.id })).thread.entries);
    expect(entry).toMatchObject({ childId: child.acpSessionId, title: 'Kiwi helper', description: 'general-purpose', state: 'idle', stopReason: 'end_turn', canCancel: true });
    await eventually(async () => (await t!.call('sessions.state', { sessionId: child.id })).session.status === 'idle', 'the child to be shown ended');
    // Its own thread, streamed from the child's model call; nothing of it in the parent's.
    expect(agentText(t.rec, child.id)).toContain('Child done: kiwi-child-result.');
    expect(agentText(t.rec, parent.id)).not.toContain('kiwi-child-result');

    // Claude Code then tells the parent's model that its background agent finished, in a turn of its own after
    // the prompt's answer: shown in the parent's thread too.
    await eventually(() => agentText(t!.rec, parent.id).includes('Parent heard back from kiwi.'), "the parent's reply to the child's end", 60_000);
    // After a restart, history keeps the tree, and reopening the parent shows its child where it was.
    await t.dispose();
    t = await makeCore({ dataDir });
    const listed = await eventually(async () => (await t!.call('history.list', {})).sessions.find((s) => s.id === parent.id), 'the parent in history');
    expect(listed.subagents).toMatchObject([{ id: child.id, parentId: parent.id, title: 'Kiwi helper' }]);
    expect((await t.call('history.list', {})).sessions.some((s) => s.id === child.id)).toBe(false);
    const childEntries = await t.call('history.entries', { sessionId: child.id, offset: 0, limit: 100 });
    expect(JSON.stringify(childEntries.entries)).toContain('kiwi-child-result');
    await t.call('sessions.reopen', { sessionId: parent.id });
    const reopened = subagentsOf((await t.call('sessions.state', { sessionId: parent.id })).thread.entries);
    expect(reopened).toHaveLength(1);
    expect(reopened[0]).toMatchObject({ childId: child.acpSessionId, title: 'Kiwi helper', state: 'idle' });
  });
});
