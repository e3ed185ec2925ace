import { agent, methods, RequestError, type AgentContext, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitationEntry } from '../../../src/shared/acp-thread';
import { StubAgentHost } from '../../support/stub-agent';
import { agentText, eventually, makeCore, promptAndWait, turnEnd, type TestCore } from './helpers';

/**
 * Sessions, permissions, elicitation, fork and restore against agents that run in this process (the SDK's
 * agent side on in-memory streams, handed in where an agent's process would be: test/support/stub-agent.ts).
 * Everything on the client side is the real one; each test writes the agent it needs.
 */

let t: TestCore | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

type Turn = (ctx: AgentContext, sessionId: string, text: string) => Promise<'end_turn' | 'cancelled'>;

/**
 * A small agent: `turn` answers prompts. Its conversations live in `memory`, which outlives its processes
 * (an agent's own storage on disk), so that session/load and session/fork can replay and copy them.
 */
function stubAgent(turn: Turn, memory = new Map<string, string[]>(), caps: { load?: boolean; fork?: boolean } = {}) {
  const say = (ctx: AgentContext, sessionId: string, text: string) =>
    ctx.notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
  let next = 0;
  return () =>
    agent({ name: 'stub' })
      .onRequest(methods.agent.initialize, () => ({
        protocolVersion: 1,
        agentInfo: { name: 'stub', version: '1.0.0' },
        authMethods: [],
        agentCapabilities: { loadSession: caps.load ?? false, sessionCapabilities: caps.fork ? { fork: {} } : {} },
      }))
      .onRequest(methods.agent.session.new, () => {
        const sessionId = `stub-${++next}-${Date.now()}`;
        memory.set(sessionId, []);
        return { sessionId };
      })
      .onRequest(methods.agent.session.load, async (ctx) => {
        const said = memory.get(ctx.params.sessionId);
        if (!said) throw RequestError.resourceNotFound(ctx.params.sessionId);
        for (const text of said) {
          await ctx.client.notify(methods.client.session.update, {
            sessionId: ctx.params.sessionId,
            update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } },
          });
          await say(ctx.client, ctx.params.sessionId, `noted: ${text}`);
        }
        return {};
      })
      .onRequest(methods.agent.session.fork, (ctx) => {
        const sessionId = `stub-fork-${++next}`;
        memory.set(sessionId, [...(memory.get(ctx.params.sessionId) ?? [])]);
        return { sessionId };
      })
      .onRequest(methods.agent.session.prompt, async (ctx) => {
        const text = ctx.params.prompt
          .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
          .map((b) => b.text)
          .join(' ');
        memory.get(ctx.params.sessionId)?.push(text);
        return { stopReason: await turn(ctx.client, ctx.params.sessionId, text) };
      })
      .onNotification(methods.agent.session.cancel, () => undefined);
}

async function start(host: StubAgentHost, name: string, build: ReturnType<typeof stubAgent>): Promise<{ agentId: string }> {
  t = await makeCore({ hosts: host.hosts });
  const { command, args } = host.define(name, build);
  const agentId = (await t.call('agents.addCustom', { name, command, args, env: {}, cwd: t.work })).id;
  return { agentId };
}

describe('agents in this process', () => {
  it('streams a turn: the answer, a tool call and its end, kept in history', async () => {
    const host = new StubAgentHost();
    const { agentId } = await start(
      host,
      'Streamer',
      stubAgent(async (ctx, sessionId, text) => {
        for (const part of ['Hello', ', ', text]) {
          await ctx.notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: part } } });
        }
        await ctx.notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: 'read-1', title: 'Read README.md', kind: 'read', status: 'completed' } });
        return 'end_turn';
      }),
    );
    const s = await t!.call('sessions.create', { agentId, cwd: t!.work });
    const end = await promptAndWait(t!, s.id, 'stub world');
    expect(end.stopReason).toBe('end_turn');
    expect(agentText(t!.rec, s.id)).toBe('Hello, stub world');
    const { thread } = await t!.call('sessions.state', { sessionId: s.id });
    expect(thread.entries.map((e) => e.kind)).toEqual(['user_message', 'agent_message', 'tool_call']);
    // The agent started in the session's folder, as a process would.
    expect(host.started).toHaveLength(1);
    expect(host.started[0]!.options.cwd).toBe(t!.work);
    const { sessions } = await t!.call('history.list', {});
    expect(sessions.find((h) => h.id === s.id)).toMatchObject({ agentId, title: 'stub world' });
  });

  it("asks for permission and tells the agent the user's choice", async () => {
    const host = new StubAgentHost();
    const { agentId } = await start(
      host,
      'Asker',
      stubAgent(async (ctx, sessionId) => {
        const answer = await ctx.request(methods.client.session.requestPermission, {
          sessionId,
          toolCall: { toolCallId: 'edit-1', title: 'Edit main.ts', kind: 'edit', status: 'pending' },
          options: [
            { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
            { optionId: 'no', name: 'Reject', kind: 'reject_once' },
          ],
        });
        const chosen = answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'cancelled';
        await ctx.notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `chose ${chosen}` } } });
        return 'end_turn';
      }),
    );
    const s = await t!.call('sessions.create', { agentId, cwd: t!.work });
    const { promptId } = await t!.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'edit it' }] });
    const req = await t!.rec.until(() => t!.rec.of('session.permission')[0], 'the permission request', 5_000);
    expect(req.toolCall).toMatchObject({ title: 'Edit main.ts', kind: 'edit' });
    expect((await t!.call('sessions.state', { sessionId: s.id })).session.status).toBe('awaiting_permission');
    await t!.call('sessions.respondPermission', { sessionId: s.id, requestId: req.requestId, outcome: 'selected', optionId: 'no' });
    await turnEnd(t!, s.id, promptId, 5_000);
    expect(agentText(t!.rec, s.id)).toBe('chose no');
  });

  it("shows an elicitation form and sends the agent the user's answer, checked against its schema", async () => {
    const host = new StubAgentHost();
    const { agentId } = await start(
      host,
      'Elicitor',
      stubAgent(async (ctx, sessionId) => {
        const answer = await ctx.request(methods.client.elicitation.create, {
          sessionId,
          mode: 'form',
          message: 'Name the project',
          requestedSchema: { type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'] },
        } as never);
        await ctx.notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: JSON.stringify(answer) } } });
        return 'end_turn';
      }),
    );
    const s = await t!.call('sessions.create', { agentId, cwd: t!.work });
    const { promptId } = await t!.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'set up' }] });
    const entry = await eventually(async () => {
      const { thread } = await t!.call('sessions.state', { sessionId: s.id });
      return thread.entries.find((e): e is ElicitationEntry => e.kind === 'elicitation' && e.state === 'pending');
    }, 'the elicitation', 5_000);
    const refused = await t!.callError('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content: { name: 'x' } });
    expect(refused.message).toMatch(/name/);
    await t!.call('sessions.respondElicitation', { sessionId: s.id, requestId: entry.requestId, action: 'accept', content: { name: 'kite' } });
    await turnEnd(t!, s.id, promptId, 5_000);
    expect(JSON.parse(agentText(t!.rec, s.id))).toEqual({ action: 'accept', content: { name: 'kite' } });
  });

  it('forks a session: the fork goes on from its conversation and is linked to it', async () => {
    const host = new StubAgentHost();
    const memory = new Map<string, string[]>();
    const { agentId } = await start(
      host,
      'Forker',
      stubAgent(
        async (ctx, sessionId) => {
          await ctx.notify(methods.client.session.update, {
            sessionId,
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: JSON.stringify(memory.get(sessionId)) } },
          });
          return 'end_turn';
        },
        memory,
        { fork: true },
      ),
    );
    const parent = await t!.call('sessions.create', { agentId, cwd: t!.work });
    expect(parent.canFork).toBe(true);
    await promptAndWait(t!, parent.id, 'first question', 5_000);
    const fork = await t!.call('sessions.fork', { sessionId: parent.id });
    expect(fork.forkedFrom).toEqual({ id: parent.id, title: 'first question' });
    await promptAndWait(t!, fork.id, 'in the fork', 5_000);
    expect(agentText(t!.rec, fork.id)).toBe(JSON.stringify(['first question', 'in the fork']));
    const { sessions } = await t!.call('history.list', {});
    expect(sessions.find((h) => h.id === parent.id)?.forks).toEqual([{ id: fork.id, title: 'in the fork' }]);
  });

  it('restores a session after its agent crashed: session/load replays the conversation once', async () => {
    const host = new StubAgentHost();
    const { agentId } = await start(
      host,
      'Loader',
      stubAgent(
        async (ctx, sessionId, text) => {
          await ctx.notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `noted: ${text}` } } });
          return 'end_turn';
        },
        new Map(),
        { load: true },
      ),
    );
    const s = await t!.call('sessions.create', { agentId, cwd: t!.work });
    await promptAndWait(t!, s.id, 'kestrel', 5_000);
    host.started[0]!.crash();
    await t!.rec.until(() => t!.rec.of('agent.status').find((st) => st.agentId === agentId && st.state === 'exited' && st.signal === 'SIGKILL'), 'the crash to be seen', 5_000);
    expect(t!.rec.of('session.state').at(-1)).toMatchObject({ id: s.id, status: 'failed' });
    await t!.call('sessions.close', { sessionId: s.id });
    const again = await t!.call('sessions.reopen', { sessionId: s.id });
    expect(host.started).toHaveLength(2);
    const { thread } = await t!.call('sessions.state', { sessionId: again.id });
    const texts = thread.entries.map((e) => (e.kind === 'user_message' || e.kind === 'agent_message' ? `${e.kind}:${JSON.stringify(e)}` : e.kind));
    expect(texts.filter((x) => x.startsWith('user_message') && x.includes('kestrel'))).toHaveLength(1);
    await promptAndWait(t!, again.id, 'after restore', 5_000);
    expect(agentText(t!.rec, again.id)).toContain('noted: after restore');
  });
});
