/**
 * Delegation and containers (issue 42): start_session places a child in a container made for it (as the
 * new-session form would: the default image, the fence Settings → Containers gives), refused in a sentence
 * where no engine is available; and a session that itself runs in a container is given the delegation server
 * inside it, reaching the core through its relay over the engine's exec stdio, its children started behind its
 * own fence. Real Podman (test/support/podman.ts) where it can run.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DELEGATION_SECRET_ENV, DELEGATION_SERVER_NAME, DELEGATION_SOCKET_ENV } from '../../../src/shared/delegation';
import { initRepo } from '../../support/git-repo';
import { podmanEnv, podmanRun, podmanSkipReason, testImage } from '../../support/podman';
import { eventually, makeCore, type TestCore } from '../acp/helpers';
import { containerCoreRig } from '../containers/core-rig';
import { recordGivenServers, type GivenServer } from './given-servers';

const skip = podmanSkipReason();
if (skip) console.warn(`skipping the delegation tests on real Podman: ${skip}`);

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients) await c.close().catch(() => {});
  clients.length = 0;
});

async function mcpClient(command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'inherit' }));
  clients.push(client);
  return client;
}

const envOf = (server: GivenServer): Record<string, string> => Object.fromEntries(server.env.map((e) => [e.name, e.value]));

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 240_000 })) as { content: Array<{ text: string }>; isError?: boolean };
  return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
}

describe('start_session in a container, where no engine is available', () => {
  let t: TestCore | null = null;
  let root: string | null = null;
  afterAll(async () => {
    await t?.dispose();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('refuses in a sentence, and starts nothing', async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-dlg-noengine-')));
    mkdirSync(join(root, 'empty'));
    // An engine environment whose PATH has no podman nor docker.
    t = await makeCore({ containers: { engineEnv: { PATH: join(root, 'empty'), HOME: root } } });
    const given = recordGivenServers(t);
    initRepo(t.work);
    const lead = await t.addAgent({}, 'Lead');
    await t.addAgent({}, 'Writer');
    await t.call('settings.set', { key: 'delegation.agents', value: [lead] });
    const parent = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const server = given(parent.id)[0]!;
    const client = await mcpClient(server.command, server.args, envOf(server));
    const refused = await call(client, 'start_session', { agent: 'Writer', task: 'sh-write x.txt nope', where: 'container' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Refused: no container can be made on this machine: .*(podman|docker|engine)/i);
    expect((await t.call('sessions.subagents', { sessionId: parent.id })).subagents).toEqual([]);
    expect(t.core.acp.sessions.list().map((s) => s.id)).toEqual([parent.id]);
  }, 120_000);
});

describe.skipIf(skip !== null)('delegation and containers (real Podman)', { timeout: 400_000 }, () => {
  const rig = containerCoreRig('sb-dlgc-');
  let image: string;

  async function setup(leadInContainer: boolean) {
    const { t, bundle } = rig;
    image ??= testImage('git');
    const given = recordGivenServers(t);
    const repo = join(rig.root, `repo-${leadInContainer ? 'fenced' : 'open'}`);
    mkdirSync(repo);
    initRepo(repo);
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin' };
    const lead = leadInContainer
      ? (await t.call('agents.addCustom', { name: 'Lead in a box', command: 'node', args: [bundle], env: { ...env, SCENARIO_CAPS: 'mcpStart' }, cwd: repo })).id
      : await t.addAgent({}, 'Lead');
    const writer = (await t.call('agents.addCustom', { name: 'Boxed writer', command: 'node', args: [bundle], env, cwd: repo })).id;
    await t.call('settings.set', { key: 'delegation.agents', value: [lead] });
    await t.call('settings.set', { key: 'containers.defaultImage', value: image });
    return { t, given, repo, lead, writer };
  }

  it('starts a child in a container made for it: the default image, the fence Settings gives', async () => {
    const { t, given, repo, lead } = await setup(false);
    await t.call('settings.set', { key: 'containers.memoryMiB', value: 384 });
    const parent = await t.call('sessions.create', { agentId: lead, cwd: repo });
    const server = given(parent.id)[0]!;
    const client = await mcpClient(server.command, server.args, envOf(server));
    const started = await call(client, 'start_session', { agent: 'Boxed writer', task: 'sh-write boxed.txt written in a box', where: 'container', wait: true });
    expect(started.isError, started.text).toBe(false);
    const result = JSON.parse(started.text) as { sessionId: string; state: string; folder: string; files: unknown };
    rig.sessions.push(result.sessionId);
    expect(result).toMatchObject({ state: 'idle', folder: repo, files: [{ path: 'boxed.txt', change: 'added' }] });
    expect(readFileSync(join(repo, 'boxed.txt'), 'utf8')).toBe('written in a box');
    const child = (await t.call('sessions.state', { sessionId: result.sessionId })).session;
    expect(child).toMatchObject({ hostId: `container:${result.sessionId}@local`, delegatedBy: parent.id });
    expect((await t.call('containers.fence', { sessionId: result.sessionId })).fence).toMatchObject({ network: 'none', memoryMiB: 384 });
  });

  it('gives a session in a container the server inside it, over the exec stdio; its children start behind its fence', async () => {
    const { t, given, repo, lead } = await setup(true);
    const parent = await t.call('sessions.create', { agentId: lead, cwd: repo, container: { source: { kind: 'image', image }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
    rig.sessions.push(parent.id);
    expect(parent.hostId).toBe(`container:${parent.id}@local`);
    const server = given(parent.id)[0]!;
    expect(server).toBeDefined();
    const env = envOf(server);
    // Paths inside the container: the server's file and the relay's socket, in its own /tmp, not in a mounted folder.
    expect(server.args[0]).toMatch(/^\/tmp\/\.switchboard-delegation\/delegation-server-[0-9a-f]{16}\.cjs$/);
    expect(env[DELEGATION_SOCKET_ENV]).toMatch(/^\/tmp\/sb-dlg-[^/]+\/s$/);
    const containerId = (JSON.parse(podmanRun(['ps', '--filter', `label=switchboard.session=${parent.id}`, '--format', 'json'])) as Array<{ Id: string }>)[0]!.Id;
    expect(podmanRun(['exec', containerId, 'sh', '-c', `ls -ld "$(dirname ${env[DELEGATION_SOCKET_ENV]})"`])).toMatch(/^drwx------/);

    // The agent inside starts it there (as a real agent does) and lists its tools.
    const log = await eventually(
      async () => {
        const text = (await t.call('agents.log', { agentId: lead })).text;
        return text.includes(`mcp ${DELEGATION_SERVER_NAME}: `) ? text : null;
      },
      'the agent in the container to start the delegation server',
      90_000,
    );
    expect(log).toContain(`mcp ${DELEGATION_SERVER_NAME}: 5 tools`);

    // The server as the agent inside runs it: through the engine's exec, with what the session was given.
    const inside = (secret: string) =>
      mcpClient('podman', ['exec', '-i', '-e', DELEGATION_SOCKET_ENV, '-e', DELEGATION_SECRET_ENV, containerId, server.command, ...server.args], { ...podmanEnv(), [DELEGATION_SOCKET_ENV]: env[DELEGATION_SOCKET_ENV]!, [DELEGATION_SECRET_ENV]: secret });
    const forged = await call(await inside('x'.repeat(43)), 'list_agents', {});
    expect(forged).toMatchObject({ isError: true, text: expect.stringMatching(/^Refused: this delegation server is no longer valid/) });
    const client = await inside(env[DELEGATION_SECRET_ENV]!);
    const started = await call(client, 'start_session', { agent: 'Boxed writer', task: 'sh-write child.txt from the child', where: 'folder', wait: true });
    expect(started.isError, started.text).toBe(false);
    const result = JSON.parse(started.text) as { sessionId: string; state: string };
    rig.sessions.push(result.sessionId);
    expect(result.state).toBe('idle');
    expect(readFileSync(join(repo, 'child.txt'), 'utf8')).toBe('from the child');
    // "this folder" for a session in a container: its child runs in a container too, behind the same fence.
    const child = (await t.call('sessions.state', { sessionId: result.sessionId })).session;
    expect(child).toMatchObject({ hostId: `container:${result.sessionId}@local`, delegatedBy: parent.id });
    expect((await t.call('containers.fence', { sessionId: result.sessionId })).fence).toMatchObject({ network: 'none', memoryMiB: 512, cpus: 1 });
    expect((await t.call('sessions.subagents', { sessionId: parent.id })).subagents.map((s) => s.id)).toEqual([result.sessionId]);
  });
});
