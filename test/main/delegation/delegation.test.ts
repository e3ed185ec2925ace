import { createConnection } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DELEGATION_SERVER_NAME, DELEGATION_SOCKET_ENV } from '../../../src/shared/delegation';
import { gitIn, initRepo } from '../../support/git-repo';
import { makeCore, type TestCore } from '../acp/helpers';
import { recordGivenServers, type GivenServer } from './given-servers';

/**
 * Delegation for any agent (issue 42) on the real core, with the real delegation MCP server process (what an agent
 * starts from its session/new) driven by the MCP SDK's client: a session starts the scenario agent in a new
 * worktree, waits, and reads its diff; the limits and the ownership refusals are sentences the agent reads.
 */

let cores: TestCore[] = [];
let clients: Client[] = [];
afterEach(async () => {
  for (const c of clients) await c.close().catch(() => {});
  clients = [];
  for (const c of cores) await c.dispose();
  cores = [];
});

async function setup(settings: { maxDepth?: number; maxChildren?: number } = {}) {
  const t = await makeCore();
  cores.push(t);
  givenBy.set(t, recordGivenServers(t));
  initRepo(t.work);
  const lead = await t.addAgent({}, 'Lead');
  const writer = await t.addAgent({}, 'Writer');
  await t.call('settings.set', { key: 'delegation.agents', value: [lead] });
  await t.call('settings.set', { key: 'delegation.descriptions', value: { [writer]: 'writes files on request' } });
  if (settings.maxDepth) await t.call('settings.set', { key: 'delegation.maxDepth', value: settings.maxDepth });
  if (settings.maxChildren) await t.call('settings.set', { key: 'delegation.maxChildren', value: settings.maxChildren });
  return { t, lead, writer };
}

/** The MCP servers the agent was sent in the session's session/new, as stored with its messages. */
/** What each session's agent was given (see given-servers.ts), per core. */
const givenBy = new Map<TestCore, (sessionId: string) => GivenServer[]>();
const sentServers = (t: TestCore, sessionId: string): GivenServer[] => givenBy.get(t)!(sessionId);

/** The delegation server as the agent of `sessionId` starts it, and an MCP client on it. */
async function connect(t: TestCore, sessionId: string): Promise<Client> {
  const server = sentServers(t, sessionId).find((s) => s.name === DELEGATION_SERVER_NAME);
  if (!server) throw new Error('the session was not given the delegation server');
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env: Object.fromEntries(server.env.map((e) => [e.name, e.value])), stderr: 'inherit' });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
  return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
}

describe('delegation', () => {
  it('is given only where it is switched on; the session lists it among what its agent was given', async () => {
    const { t, lead, writer } = await setup();
    const on = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const off = await t.call('sessions.create', { agentId: writer, cwd: t.work });
    const forced = await t.call('sessions.create', { agentId: writer, cwd: t.work, delegation: true });
    const optedOut = await t.call('sessions.create', { agentId: lead, cwd: t.work, delegation: false });
    const names = (id: string) => sentServers(t, id).map((s) => s.name);
    expect(names(on.id)).toEqual([DELEGATION_SERVER_NAME]);
    expect(names(off.id)).toEqual([]);
    expect(names(forced.id)).toEqual([DELEGATION_SERVER_NAME]);
    expect(names(optedOut.id)).toEqual([]);
    const config = (await t.call('sessions.effectiveConfig', { sessionId: on.id })).config!;
    const given = config.mcpServers.find((s) => s.name === DELEGATION_SERVER_NAME)!;
    expect(given.type).toBe('stdio');
    // The channel and its secret are named, never shown.
    expect(given.keys).toEqual(expect.arrayContaining([DELEGATION_SOCKET_ENV, 'SWITCHBOARD_DELEGATION_SECRET']));
    expect(JSON.stringify(config)).not.toContain(sentServers(t, on.id)[0]!.env.find((e) => e.name === 'SWITCHBOARD_DELEGATION_SECRET')!.value);
  });

  it('starts the scenario agent in a new worktree, waits for it, and reads its diff; the child shows under its parent', async () => {
    const { t, lead, writer } = await setup();
    const parent = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const client = await connect(t, parent.id);
    expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual(['cancel_session', 'list_agents', 'read_session', 'send_followup', 'start_session']);

    const agents = JSON.parse((await call(client, 'list_agents', {})).text) as { agents: Array<{ id: string; name: string; goodAt: string | null }> };
    expect(agents.agents).toContainEqual({ id: writer, name: 'Writer', goodAt: 'writes files on request' });

    const started = await call(client, 'start_session', { agent: 'Writer', task: 'sh-write notes.txt hello from the writer', where: 'worktree', wait: true });
    expect(started.isError, started.text).toBe(false);
    const result = JSON.parse(started.text) as { sessionId: string; state: string; folder: string; branch: string; lastMessage: string; files: Array<{ path: string; change: string }>; diff: string };
    expect(result.state).toBe('idle');
    expect(result.lastMessage).toContain('wrote notes.txt');
    expect(result.branch).toMatch(/^delegate\//);
    expect(result.folder).not.toBe(t.work);
    expect(readFileSync(join(result.folder, 'notes.txt'), 'utf8')).toBe('hello from the writer');
    // The work happened in the worktree, not in the parent's folder.
    expect(existsSync(join(t.work, 'notes.txt'))).toBe(false);
    expect(gitIn(result.folder)('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(result.branch);
    expect(result.files).toEqual([{ path: 'notes.txt', change: 'added' }]);
    expect(result.diff).toContain('+hello from the writer');

    // A child of the session that started it, as ACP subagents are.
    const child = (await t.call('sessions.state', { sessionId: result.sessionId })).session;
    expect(child.delegatedBy).toBe(parent.id);
    expect(child.agentId).toBe(writer);
    const subagents = (await t.call('sessions.subagents', { sessionId: parent.id })).subagents;
    expect(subagents.map((s) => s.id)).toEqual([result.sessionId]);
    const thread = (await t.call('sessions.state', { sessionId: parent.id })).thread;
    const card = thread.entries.find((e) => e.kind === 'subagent');
    expect(card).toMatchObject({ childId: child.acpSessionId, title: 'Writer (delegated)', state: 'idle' });

    // A follow-up, waited for, then the read.
    const followed = await call(client, 'send_followup', { sessionId: result.sessionId, text: 'sh-write more.txt second', wait: true });
    expect(JSON.parse(followed.text)).toMatchObject({ state: 'idle', lastMessage: 'wrote more.txt' });
    const read = JSON.parse((await call(client, 'read_session', { sessionId: result.sessionId, diff: false })).text) as { files: unknown[]; diff?: string };
    expect(read.files).toEqual(expect.arrayContaining([{ path: 'more.txt', change: 'added' }, { path: 'notes.txt', change: 'added' }]));
    expect(read.diff).toBeUndefined();
  });

  it("a delegated session's permission waits for the user (its parent's wait goes on meanwhile), and the parent's card says it needs you", async () => {
    const { t, lead } = await setup();
    const parent = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const client = await connect(t, parent.id);
    const waiting = call(client, 'start_session', { agent: 'Writer', task: 'permission edit', wait: true });
    const asked = await t.rec.until(() => t.rec.of('session.permission').find((p) => p.sessionId !== parent.id), 'the child asking a permission');
    const child = (await t.call('sessions.state', { sessionId: asked.sessionId })).session;
    // Asked of the user: the child waits for them (the window's "needs you" counts live sessions awaiting a permission).
    expect(child).toMatchObject({ status: 'awaiting_permission', delegatedBy: parent.id });
    const card = () => (t.core.acp.sessions.session(parent.id)!.snapshot().thread.entries.find((e) => e.kind === 'subagent') as { state: string } | undefined)?.state;
    await t.rec.until(() => card() === 'requires_action', "the parent's card saying its child needs the user");
    await t.call('sessions.respondPermission', { sessionId: child.id, requestId: asked.requestId, outcome: 'selected', optionId: 'yes-just-once' });
    const done = JSON.parse((await waiting).text) as { state: string; lastMessage: string };
    expect(done).toMatchObject({ state: 'idle' });
    expect(done.lastMessage).toContain('permission: selected yes-just-once');
    expect(card()).toBe('idle');
  });

  it('refuses past the limits, and a session it did not start, in a sentence', async () => {
    const { t, lead, writer } = await setup({ maxDepth: 1, maxChildren: 1 });
    await t.call('settings.set', { key: 'delegation.agents', value: [lead, writer] });
    const parent = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const other = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const client = await connect(t, parent.id);
    const first = JSON.parse((await call(client, 'start_session', { agent: writer, task: 'say hi' })).text) as { sessionId: string };

    const second = await call(client, 'start_session', { agent: 'Writer', task: 'say again' });
    expect(second).toEqual({ isError: true, text: 'Refused: this session has started 1 sessions already, the most one session may start (1).' });

    // The child is one level deep already: it may not delegate further (its agent's switch is on).
    const childClient = await connect(t, first.sessionId);
    const deeper = await call(childClient, 'start_session', { agent: 'Lead', task: 'say deeper' });
    expect(deeper.isError).toBe(true);
    expect(deeper.text).toBe('Refused: delegation goes 1 level deep at most, and this session is itself a delegated session: do this task yourself.');

    // Another session (with delegation of its own) cannot read, steer or cancel the child it did not start.
    const otherClient = await connect(t, other.id);
    for (const [tool, args] of [
      ['read_session', { sessionId: first.sessionId }],
      ['send_followup', { sessionId: first.sessionId, text: 'sh-write stolen.txt x' }],
      ['cancel_session', { sessionId: first.sessionId }],
    ] as const) {
      const r = await call(otherClient, tool, args);
      expect(r, tool).toEqual({ isError: true, text: `Refused: session ${first.sessionId} was not started by this session; an agent can read and steer only the sessions it started.` });
    }
    // Nor can the child read its parent.
    expect((await call(childClient, 'read_session', { sessionId: parent.id })).isError).toBe(true);
    expect(existsSync(join(t.work, 'stolen.txt'))).toBe(false);
    // Unknown agents are named in the refusal.
    const unknown = await call(client, 'start_session', { agent: 'Nobody', task: 'x' });
    expect(unknown.isError).toBe(true);
  });

  it('checks what comes over the channel: a wrong secret and arguments of the wrong shape are refused, a garbage line drops the connection', async () => {
    const { t, lead } = await setup();
    const parent = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const env = Object.fromEntries(sentServers(t, parent.id)[0]!.env.map((e) => [e.name, e.value]));
    const socket = createConnection(env[DELEGATION_SOCKET_ENV]!);
    socket.setEncoding('utf8');
    const lines: string[] = [];
    let closed = false;
    let wake: () => void = () => {};
    socket.on('data', (d: string) => {
      lines.push(...d.split('\n').filter(Boolean));
      wake();
    });
    socket.on('close', () => {
      closed = true;
      wake();
    });
    const until = (pred: () => boolean) =>
      new Promise<void>((resolve) => {
        if (pred()) return resolve();
        wake = () => pred() && resolve();
      });
    socket.write(`${JSON.stringify({ id: 1, secret: 'x'.repeat(43), tool: 'list_agents', args: {} })}\n`);
    socket.write(`${JSON.stringify({ id: 2, secret: env.SWITCHBOARD_DELEGATION_SECRET, tool: 'start_session', args: { agent: 'Writer', task: 'x', where: '/etc' } })}\n`);
    socket.write(`${JSON.stringify({ id: 3, secret: env.SWITCHBOARD_DELEGATION_SECRET, tool: 'read_session', args: { sessionId: '../../etc/passwd' } })}\n`);
    await until(() => lines.length >= 3);
    const answers = lines.map((l) => JSON.parse(l) as { id: number; ok: boolean; text: string }).sort((a, b) => a.id - b.id);
    expect(answers[0]).toMatchObject({ id: 1, ok: false, text: expect.stringMatching(/^Refused: this delegation server is no longer valid/) });
    expect(answers[1]).toMatchObject({ id: 2, ok: false, text: expect.stringMatching(/^Refused: invalid arguments for start_session: where/) });
    expect(answers[2]).toMatchObject({ id: 3, ok: false, text: expect.stringMatching(/^Refused: invalid arguments for read_session: sessionId/) });
    socket.write('not json\n');
    await until(() => closed);
    expect(closed).toBe(true);
  });
});
