/**
 * Delegation for a session whose agent runs on an SSH host (issue 42), against a real OpenSSH server
 * (test/support/sshd.ts): the delegation MCP server is given on the host (its file copied there, run by the
 * host's node as the remote user), it reaches the core through the session's relay over the helper's own
 * connection (a unix socket in a folder of the remote user's alone, no network port), children start on the host
 * (in the folder there, or a new worktree there, made by the worktrees service so the user commits and merges it
 * from Switchboard on the host) and show under their parent, and a wrong secret is refused.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELEGATION_SECRET_ENV, DELEGATION_SERVER_NAME, DELEGATION_SOCKET_ENV } from '../../../src/shared/delegation';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { gitIn, initRepo } from '../../support/git-repo';
import { eventually, makeCore, type TestCore } from '../acp/helpers';
import { recordGivenServers, type GivenServer } from './given-servers';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the delegation-over-SSH tests: ${skip}`);

const HOST = 'ssh:sbtest';
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe.skipIf(skip !== null)('delegation for a session on an SSH host', () => {
  let sshd: Sshd;
  let t: TestCore;
  let given: (sessionId: string) => GivenServer[];
  let folder: string;
  let uid: number;
  let lead: string;
  let writer: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    sshd = await startSshd();
    await sshd.setKnownHosts('right');
    t = await makeCore({ sshConfigFile: sshd.configFile });
    given = recordGivenServers(t);
    uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
    folder = join(sshd.home, `dlg-${randomBytes(4).toString('hex')}`);
    mkdirSync(folder);
    initRepo(folder);
    spawnSync('chown', ['-R', `${uid}:${uid}`, folder]);
    lead = await t.addAgent({ SCENARIO_CAPS: 'mcpStart' }, 'Lead');
    writer = await t.addAgent({}, 'Writer');
    await t.call('settings.set', { key: 'delegation.agents', value: [lead] });
    await t.call('settings.set', { key: 'delegation.descriptions', value: { [writer]: 'writes files on request' } });
    expect(await t.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
  }, 90_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await t?.dispose();
    await sshd?.stop();
    if (folder) {
      rmSync(folder, { recursive: true, force: true });
      rmSync(`${folder}.worktrees`, { recursive: true, force: true });
    }
  });

  /** The delegation server as the agent on the host starts it: over ssh, as the remote user, with what it was given. */
  async function connectOnHost(server: GivenServer, env: Record<string, string>): Promise<Client> {
    const remote = ['env', ...Object.entries(env).map(([k, v]) => q(`${k}=${v}`)), q(server.command), ...server.args.map(q)].join(' ');
    const transport = new StdioClientTransport({ command: 'ssh', args: ['-F', sshd.configFile, '-T', sshd.alias, remote], stderr: 'inherit' });
    const client = new Client({ name: 'agent-on-the-host', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
    const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
    return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
  }

  it('gives the server on the host, reached through a socket only the remote user can enter; children start there, linked under the parent', async () => {
    const parent = await t.call('sessions.create', { agentId: lead, hostId: HOST, cwd: folder });
    expect(parent).toMatchObject({ hostId: HOST, status: 'idle' });
    const server = given(parent.id)[0]!;
    expect(server).toBeDefined();
    const env = Object.fromEntries(server.env.map((e) => [e.name, e.value]));
    // The server's file is on the host, the remote user's, and so is the relay's socket, in a folder of its own (0700).
    expect(server.args[0]!.startsWith(join(sshd.home, '.switchboard-server', 'delegation'))).toBe(true);
    expect(statSync(server.args[0]!).uid).toBe(uid);
    const socket = env[DELEGATION_SOCKET_ENV]!;
    const socketDir = statSync(dirname(socket));
    expect(socketDir.uid).toBe(uid);
    expect(socketDir.mode & 0o777).toBe(0o700);
    expect(statSync(socket).isSocket()).toBe(true);
    // "What the agent was given" lists it, its channel and secret by name only.
    const config = (await t.call('sessions.effectiveConfig', { sessionId: parent.id })).config!;
    expect(config.mcpServers.find((s) => s.name === DELEGATION_SERVER_NAME)).toMatchObject({ type: 'stdio', keys: expect.arrayContaining([DELEGATION_SOCKET_ENV, DELEGATION_SECRET_ENV]) });

    // The agent on the host (the scenario agent, as a real agent does) starts it there and lists its tools.
    const log = await eventually(
      async () => {
        const text = (await t.call('agents.log', { agentId: lead })).text;
        return text.includes(`mcp ${DELEGATION_SERVER_NAME}: `) ? text : null;
      },
      'the agent on the host to start the delegation server',
      60_000,
    );
    expect(log).toContain(`mcp ${DELEGATION_SERVER_NAME}: 5 tools`);

    const client = await connectOnHost(server, env);
    const agents = JSON.parse((await call(client, 'list_agents', {})).text) as { agents: Array<{ id: string; name: string; goodAt: string | null }> };
    expect(agents.agents).toContainEqual({ id: writer, name: 'Writer', goodAt: 'writes files on request' });

    // In the folder on the host.
    const inFolder = await call(client, 'start_session', { agent: 'Writer', task: 'sh-write here.txt written on the host', wait: true });
    expect(inFolder.isError, inFolder.text).toBe(false);
    const first = JSON.parse(inFolder.text) as { sessionId: string; state: string; folder: string; files: unknown };
    expect(first).toMatchObject({ state: 'idle', folder });
    expect(readFileSync(join(folder, 'here.txt'), 'utf8')).toBe('written on the host');
    expect(statSync(join(folder, 'here.txt')).uid).toBe(uid);
    expect(first.files).toEqual([{ path: 'here.txt', change: 'added' }]);

    // In a new worktree on the host.
    const inWorktree = await call(client, 'start_session', { agent: 'Writer', task: 'sh-write notes.txt hello from the worktree', where: 'worktree', wait: true });
    expect(inWorktree.isError, inWorktree.text).toBe(false);
    const second = JSON.parse(inWorktree.text) as { sessionId: string; state: string; folder: string; branch: string; diff: string };
    expect(second.branch).toMatch(/^delegate\//);
    expect(second.folder.startsWith(`${folder}.worktrees/`)).toBe(true);
    expect(readFileSync(join(second.folder, 'notes.txt'), 'utf8')).toBe('hello from the worktree');
    expect(statSync(join(second.folder, 'notes.txt')).uid).toBe(uid);
    expect(gitIn(second.folder)('-c', 'safe.directory=*', 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(second.branch);
    expect(existsSync(join(folder, 'notes.txt'))).toBe(false);
    expect(second.diff).toContain('+hello from the worktree');

    // Switchboard knows the child's worktree as the host's (the worktree bar lists it), and commits and merges it
    // there as any worktree made from the new-session form.
    const listed = await t.call('worktrees.list', { repo: folder, hostId: HOST });
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    expect(listed.value.worktrees).toContainEqual(expect.objectContaining({ path: second.folder, branch: second.branch, managed: true }));
    expect(await t.call('worktrees.describe', { paths: [second.folder] })).toMatchObject({ worktrees: { [second.folder]: { hostId: HOST, repo: folder, branch: second.branch, base: 'main' } } });
    const committed = await t.call('worktrees.commit', { path: second.folder, message: 'Notes from the child', files: ['notes.txt'] });
    if (!committed.ok) throw new Error(JSON.stringify(committed.error));
    const hostGit = gitIn(folder);
    expect(hostGit('-c', 'safe.directory=*', 'log', '--format=%s', '-1', second.branch).trim()).toBe('Notes from the child');
    const merged = await t.call('worktrees.merge', { path: second.folder, strategy: 'ff' });
    if (!merged.ok) throw new Error(JSON.stringify(merged.error));
    expect(hostGit('-c', 'safe.directory=*', 'log', '--format=%s', '-1', 'main').trim()).toBe('Notes from the child');
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('hello from the worktree');

    for (const id of [first.sessionId, second.sessionId]) {
      const child = (await t.call('sessions.state', { sessionId: id })).session;
      expect(child).toMatchObject({ hostId: HOST, delegatedBy: parent.id, agentId: writer });
    }
    const subagents = (await t.call('sessions.subagents', { sessionId: parent.id })).subagents;
    expect(subagents.map((s) => s.id).sort()).toEqual([first.sessionId, second.sessionId].sort());
  }, 240_000);

  it('refuses a server whose secret is not the session\'s, and one of a closed session', async () => {
    const parent = await t.call('sessions.create', { agentId: lead, hostId: HOST, cwd: folder });
    const server = given(parent.id)[0]!;
    const env = Object.fromEntries(server.env.map((e) => [e.name, e.value]));
    const forged = await connectOnHost(server, { ...env, [DELEGATION_SECRET_ENV]: randomBytes(32).toString('base64url') });
    const refused = await call(forged, 'list_agents', {});
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Refused: this delegation server is no longer valid/);

    const genuine = await connectOnHost(server, env);
    expect((await call(genuine, 'list_agents', {})).isError).toBe(false);
    await t.call('sessions.close', { sessionId: parent.id });
    // Its relay is gone with it: nothing listens there any more.
    await t.rec.until(() => !existsSync(env[DELEGATION_SOCKET_ENV]!), "the closed session's relay to end", 30_000);
  }, 120_000);
});
