// The real Claude Agent 0.101 delegating through Switchboard's delegation MCP server, its model the fake LLM.
// Skipped unless installed: `node scripts/install-test-agents.mjs claude-agent`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DELEGATION_SERVER_NAME } from '../../../src/shared/delegation';
import type { LlmRequest } from '../../support/fake-llm/types';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index';
import { gitIn, initRepo } from '../../support/git-repo';
import { agentLaunch, createAgentHome, requireOrSkipAgent, type AgentHome } from '../../support/real-agents/index';
import { eventually, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

/**
 * Issue 42, delegation end to end: Claude Code names an MCP server's tools `mcp__<server>__<tool>`. Its model
 * calls `start_session` (the scenario agent, in a new worktree, waited for), then `read_session`; the child is
 * Switchboard's session under the parent, and its diff comes back to the model as the tool's result.
 */

const installed = requireOrSkipAgent('claude-agent');
const tool = (name: string) => `mcp__${DELEGATION_SERVER_NAME}__${name}`;
const texts = (req: LlmRequest) => req.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));

describe.skipIf(!installed)('delegation from the real Claude Agent (fake LLM)', { timeout: 180_000 }, () => {
  let llm: FakeLlm | null = null;
  let home: AgentHome | null = null;
  let t: TestCore | null = null;
  afterEach(async () => {
    await t?.dispose();
    await llm?.close();
    home?.dispose();
  });

  it('starts the scenario agent in a new worktree, waits, and reads its diff; the child shows under the parent', async () => {
    llm = await startFakeLlm();
    home = createAgentHome('claude-agent');
    t = await makeCore();
    initRepo(t.work);
    const writer = await t.addAgent({}, 'Writer');
    const launch = agentLaunch('claude-agent', { llmUrl: llm.url, home: home.home });
    const claude = (await t.call('agents.addCustom', { name: 'Claude Agent', command: launch.command, args: launch.args, env: launch.env, cwd: t.work })).id;

    // The turn: start_session, then read_session of the child it names, then an answer.
    const turn: LlmRequest[] = [];
    llm.addRule((req) => {
      const all = texts(req);
      if (req.tools.length === 0 || all.some((x) => x.includes('[SUGGESTION MODE')) || !all.some((x) => x.includes('delegate-the-notes'))) return undefined;
      turn.push(req);
      const [started, read] = req.toolResults;
      if (!started) return { type: 'tool_call', name: tool('start_session'), args: { agent: 'Writer', task: 'sh-write notes.txt hello from the writer', where: 'worktree', wait: true } };
      if (!read) {
        const id = /"sessionId": "([^"]+)"/.exec(started.output)?.[1];
        return id ? { type: 'tool_call', name: tool('read_session'), args: { sessionId: id } } : { type: 'text', text: `no session id in: ${started.output}` };
      }
      return { type: 'text', text: 'Parent read the diff.' };
    });

    const parent = await t.call('sessions.create', { agentId: claude, cwd: t.work, delegation: true });
    // Its `auto` mode asks a safety classifier (a side call the fake cannot answer) and blocks the tool.
    await t.call('sessions.setMode', { sessionId: parent.id, modeId: 'default' });
    const ended = promptAndWait(t, parent.id, 'Please delegate-the-notes', 150_000);
    // In `default` mode Claude Code asks before each MCP tool call: the user says "Yes" to each, as the window would.
    for (const toolName of ['start_session', 'read_session']) {
      const asked = await t.rec.until(() => t!.rec.of('session.permission').find((p) => p.sessionId === parent.id && p.toolCall.title === tool(toolName)), `the ${toolName} permission`, 60_000);
      expect(asked.options.map((o) => o.optionId)).toContain('allow-once');
      await t.call('sessions.respondPermission', { sessionId: parent.id, requestId: asked.requestId, outcome: 'selected', optionId: 'allow-once' });
    }
    const end = await ended;
    expect(end.error, llm.describeLog()).toBeNull();

    // The child: the scenario agent's session, linked to its parent, in a new worktree where its file is.
    const subagents = (await t.call('sessions.subagents', { sessionId: parent.id })).subagents;
    expect(subagents).toHaveLength(1);
    const child = (await t.call('sessions.state', { sessionId: subagents[0]!.id })).session;
    expect(child).toMatchObject({ agentId: writer, delegatedBy: parent.id });
    expect(child.cwd).not.toBe(t.work);
    expect(readFileSync(join(child.cwd, 'notes.txt'), 'utf8')).toBe('hello from the writer');
    expect(existsSync(join(t.work, 'notes.txt'))).toBe(false);
    expect(gitIn(child.cwd)('rev-parse', '--abbrev-ref', 'HEAD').trim()).toMatch(/^delegate\//);
    expect(gitIn(t.work)('worktree', 'list', '--porcelain')).toContain(`worktree ${child.cwd}\n`);

    // Shown under its parent: the parent's thread has its card, and history lists it under the parent only.
    const card = (await t.call('sessions.state', { sessionId: parent.id })).thread.entries.find((e) => e.kind === 'subagent');
    expect(card).toMatchObject({ childId: child.acpSessionId, title: 'Writer (delegated)', state: 'idle' });
    const listed = await eventually(async () => (await t!.call('history.list', {})).sessions.find((s) => s.id === parent.id && s.subagents?.length), 'the parent in history with its child');
    expect(listed.subagents).toMatchObject([{ id: child.id, parentId: parent.id }]);
    expect((await t.call('history.list', {})).sessions.some((s) => s.id === child.id)).toBe(false);

    // The child's diff reached the model: the request after read_session carries it as the tool's result.
    const last = turn.find((r) => r.toolResults.length === 2);
    expect(last, llm.describeLog()).toBeDefined();
    const read = JSON.parse(last!.toolResults[1]!.output) as { sessionId: string; state: string; branch: string; files: unknown; diff: string };
    expect(read).toMatchObject({ sessionId: child.id, state: 'idle', files: [{ path: 'notes.txt', change: 'added' }] });
    expect(read.branch).toMatch(/^delegate\//);
    expect(read.diff).toContain('+hello from the writer');
  });
});
