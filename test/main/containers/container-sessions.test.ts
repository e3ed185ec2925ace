/**
 * A session in a container through AppCore, on a real Podman: the scenario agent (bundled into one file,
 * copied into the container by the session's host) runs inside; a tool write and a shell write inside are
 * reviewed and reverted by the checkpoints that read the bind mount from this machine; Switchboard restarts
 * and the session reopens, its stopped container started again.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentBundleAt } from '../../fixtures/scenario-agent/launch';
import { agentText, makeCore, promptAndWait, turnEnd, type TestCore } from '../acp/helpers';
import { podmanEnv, podmanRun, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';

const skip = podmanSkipReason();

interface Turn {
  id: string;
  state: string;
  changes: { from: string; to: string; files: Array<{ path: string; status: string }> } | null;
}

describe.skipIf(skip !== null)('a session in a container through the app (real Podman)', { timeout: 300_000 }, () => {
  let root: string;
  let bundle: string;
  let image: string;
  const cores: TestCore[] = [];

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cint-')));
    bundle = join(root, 'agent-bundle', 'scenario-agent.mjs');
    scenarioAgentBundleAt(bundle);
    image = testImage('node');
  }, 180_000);

  afterAll(async () => {
    for (const c of cores) await c.dispose().catch(() => {});
    // The sessions' ids are UUIDs: their containers are found by the data folder's sessions.
    if (skip === null) for (const id of containerSessions) removeTestContainers(id);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const containerSessions: string[] = [];

  async function core(dataDir: string): Promise<TestCore> {
    const t = await makeCore({ dataDir, containers: { engineEnv: podmanEnv() }, checkpoints: true });
    cores.push(t);
    return t;
  }

  it('runs the agent inside, reviews and reverts a tool write and a shell write, and reopens after a restart', async () => {
    const dataDir = join(root, 'data');
    const repo = join(root, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    let t = await core(dataDir);
    const agent = await t.call('agents.addCustom', {
      name: 'Scenario',
      command: 'node',
      args: [bundle],
      // The agent's store is the container's own (its /tmp outlives a stop): the reopen below loads from it.
      env: { SCENARIO_CAPS: 'loadSession', SCENARIO_STORE: '/tmp/scenario-store.json', PATH: '/usr/local/bin:/usr/bin:/bin' },
      cwd: repo,
    });
    const session = await t.call('sessions.create', { agentId: agent.id, cwd: repo, container: { source: { kind: 'image', image }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
    containerSessions.push(session.id);
    expect(session.hostId).toBe(`container:${session.id}@local`);

    // The agent runs inside: its own view of the machine is the container's.
    expect((await promptAndWait(t, session.id, 'say hello')).error).toBeNull();
    const listed = JSON.parse(podmanRun(['ps', '--filter', `label=switchboard.session=${session.id}`, '--format', 'json'])) as Array<{ Id: string; State: string }>;
    expect(listed).toHaveLength(1);
    const containerId = listed[0]!.Id;
    const seen = podmanRun(['exec', containerId, 'sh', '-c', 'ps -eo args']);
    expect(seen).toContain('scenario-agent.mjs');
    // Its env value never on a command line, here or inside.
    expect(seen).not.toContain('scenario-store');

    // A tool write (fs/write_text_file, done by Switchboard in the bind-mounted folder) and a shell write by the agent inside.
    expect((await promptAndWait(t, session.id, `write ${repo}/tool.txt from the tool`)).error).toBeNull();
    // The shell of an agent's terminal runs inside (its hostname is the container's) and writes in the mount.
    const script = 'mkdir -p notes && echo from a shell inside > notes/shell.txt && cat /etc/os-release';
    expect((await promptAndWait(t, session.id, `terminal ${JSON.stringify({ command: 'sh', args: ['-c', script], cwd: repo })}`)).error).toBeNull();
    expect(agentText(t.rec, session.id)).toContain('Switchboard test image');
    expect(readFileSync(join(repo, 'tool.txt'), 'utf8')).toBe('from the tool');
    expect(readFileSync(join(repo, 'notes/shell.txt'), 'utf8')).toBe('from a shell inside\n');
    await t.core.checkpoints.idle();
    const { turns } = await t.call('checkpoints.listTurns', { sessionId: session.id });
    const [, toolTurn, shellTurn] = turns as Turn[];
    expect(toolTurn!.changes!.files).toMatchObject([{ path: 'tool.txt', status: 'added' }]);
    expect(shellTurn!.changes!.files).toMatchObject([{ path: 'notes/shell.txt', status: 'added' }]);
    const diff = await t.call('checkpoints.fileDiff', { from: shellTurn!.changes!.from, to: shellTurn!.changes!.to, path: 'notes/shell.txt' });
    expect(diff).toMatchObject({ newText: 'from a shell inside\n' });
    await t.call('checkpoints.revert', { from: shellTurn!.changes!.from, to: shellTurn!.changes!.to, scope: { kind: 'all' } });
    await t.call('checkpoints.revert', { from: toolTurn!.changes!.from, to: toolTurn!.changes!.to, scope: { kind: 'all' } });
    expect(existsSync(join(repo, 'notes/shell.txt'))).toBe(false);
    expect(existsSync(join(repo, 'tool.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');

    // In a fence with no network the user may let every command inside go without asking: off, it asks.
    const asked = t.rec.of('session.permission').length;
    const { promptId } = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'ask-run make test' }] });
    const request = await t.rec.until(() => t.rec.of('session.permission')[asked], 'the permission request');
    await t.call('sessions.respondPermission', { sessionId: session.id, requestId: request.requestId, outcome: 'selected', optionId: 'reject' });
    await turnEnd(t, session.id, promptId);
    expect(agentText(t.rec, session.id)).toContain('ask-run make test: selected reject');
    await t.call('settings.set', { key: 'containers.fencedAutoApprove', value: true });
    expect((await promptAndWait(t, session.id, 'ask-run make all')).error).toBeNull();
    expect(agentText(t.rec, session.id)).toContain('ask-run make all: selected allow-once');
    const resolved = t.rec.updates().filter((u) => u.sessionId === session.id && u.event.type === 'permission_resolved').map((u) => u.event);
    expect(resolved.at(-1)).toMatchObject({ outcome: 'selected', optionId: 'allow-once', byRule: { ruleId: 0, fenced: 'none' } });
    expect(t.rec.of('session.permission')).toHaveLength(asked + 1);

    // Quitting stops the container (it is not removed); the next start reopens the session and starts it again.
    await t.dispose();
    cores.splice(cores.indexOf(t), 1);
    expect(podmanRun(['inspect', '--format', '{{.State.Status}}', containerId]).trim()).toMatch(/exited|stopped/);
    t = await core(dataDir);
    // Telling how it would come back (History does) starts nothing.
    expect(await t.call('sessions.reopenPlan', { sessionId: session.id })).toMatchObject({ mode: 'load' });
    expect(podmanRun(['inspect', '--format', '{{.State.Status}}', containerId]).trim()).toMatch(/exited|stopped/);
    const reopened = await t.call('sessions.reopen', { sessionId: session.id });
    expect(reopened.hostId).toBe(session.hostId);
    expect(podmanRun(['inspect', '--format', '{{.State.Status}}', containerId]).trim()).toBe('running');
    expect((await promptAndWait(t, session.id, 'say still inside')).error).toBeNull();
    expect(agentText(t.rec, session.id)).toContain('still inside');

    // The user's shell tab on the session's host opens inside the container, in the mounted folder.
    const shell = await t.call('pty.createShell', { cols: 80, rows: 24, cwd: repo, hostId: session.hostId });
    await t.call('pty.write', { id: shell.id, data: 'cat /etc/os-release; pwd\n' });
    await t.rec.until(() => t.rec.of('pty.data').filter((d) => d.id === shell.id).map((d) => d.data).join('').includes('Switchboard test image'), 'the shell inside to answer');
    await t.call('pty.kill', { id: shell.id });

    // Settings lists it; idle past the setting, it is stopped, and the next prompt starts it (and the agent) again.
    expect((await t.call('containers.list', { hostId: 'local' })).containers.filter((c) => c.sessionId === session.id)).toMatchObject([{ id: containerId, state: 'running' }]);
    await t.call('settings.set', { key: 'containers.idleStopMinutes', value: 5 });
    expect(await t.core.containers.stopIdle(Date.now() + 60_000)).toEqual([]);
    expect(await t.core.containers.stopIdle(Date.now() + 6 * 60_000)).toEqual([session.hostId]);
    expect(podmanRun(['inspect', '--format', '{{.State.Status}}', containerId]).trim()).toMatch(/exited|stopped/);
    expect((await promptAndWait(t, session.id, 'say awake again')).error).toBeNull();
    expect(agentText(t.rec, session.id)).toContain('awake again');
    expect(podmanRun(['inspect', '--format', '{{.State.Status}}', containerId]).trim()).toBe('running');

    // Settings' Stop: the same (the session comes back with its next prompt); a container the user made is left alone.
    await t.call('containers.stop', { hostId: 'local', id: containerId });
    expect(podmanRun(['inspect', '--format', '{{.State.Status}}', containerId]).trim()).toMatch(/exited|stopped/);
    expect((await promptAndWait(t, session.id, 'say after a stop')).error).toBeNull();
    expect(agentText(t.rec, session.id)).toContain('after a stop');
    // Removed from outside: the session says so; started again, it goes on in a container made anew.
    podmanRun(['rm', '-f', containerId]);
    expect((await promptAndWait(t, session.id, 'say into the void')).error?.message).toContain('is gone: it was stopped or removed outside this session');
    // The agent starts in the new container; it kept its sessions in the old one's /tmp, so it no longer knows this one.
    expect((await t.callError('sessions.reopen', { sessionId: session.id })).message).toContain('session/load failed: Resource not found');
    const anew = (await t.call('containers.list', { hostId: 'local' })).containers.filter((c) => c.sessionId === session.id);
    expect(anew).toMatchObject([{ state: 'running' }]);
    expect(anew[0]!.id).not.toBe(containerId);
    const mine = podmanRun(['create', '--label', 'mine=1', image, 'sleep', '1']).trim();
    try {
      expect((await t.callError('containers.remove', { hostId: 'local', id: mine })).message).toContain('is not a container Switchboard made: it is left alone');
      expect((await t.call('containers.list', { hostId: 'local' })).containers.map((c) => c.id)).not.toContain(mine);
    } finally {
      podmanRun(['rm', '-f', mine]);
    }
  });

  it('an image without node is named for what it lacks, before the agent starts', async () => {
    const t = await core(join(root, 'data-bare'));
    const repo = join(root, 'bare-repo');
    mkdirSync(repo);
    const agent = await t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [bundle], env: {}, cwd: repo });
    const sessionId = crypto.randomUUID();
    containerSessions.push(sessionId);
    const error = await t.callError('sessions.create', { agentId: agent.id, cwd: repo, sessionId, container: { source: { kind: 'image', image: testImage('base') } } });
    expect(error.message).toContain('this image has no node: choose an image with node 20+, or add the node feature');
    // Nothing of the session is left: neither its row nor its container.
    expect(podmanRun(['ps', '-a', '-q', '--filter', `label=switchboard.session=${sessionId}`]).trim()).toBe('');
    expect((await t.callError('sessions.reopen', { sessionId })).code).toBe('not_found');
  });

  it("a repository's fence-lowering setting is refused until the user allows it for that repository, then remembered", async () => {
    const t = await core(join(root, 'data-policy'));
    const repo = join(root, 'policy-repo');
    mkdirSync(join(repo, '.devcontainer'), { recursive: true });
    writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), `{ "image": "${image}", "capAdd": ["SYS_PTRACE"], "postCreateCommand": "echo made > made.txt" }`);
    const agent = await t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [bundle], env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, cwd: repo });
    const { config } = await t.call('containers.repoConfig', { hostId: 'local', folder: repo });
    expect(config).toMatchObject({ source: `image ${image}`, commands: [{ name: 'postCreateCommand', command: 'echo made > made.txt' }], items: [{ key: 'capAdd', verdict: 'ask', allowed: false }] });
    const itemId = config!.items[0]!.id;

    const refused = await t.callError('sessions.create', { agentId: agent.id, cwd: repo, container: { source: { kind: 'repo' } } });
    expect(refused).toMatchObject({ code: 'forbidden', message: expect.stringContaining('capAdd (adds kernel capabilities to the container; needs your allowance)') });
    // Nothing of it ran: no container, no file of its postCreateCommand.
    expect(existsSync(join(repo, 'made.txt'))).toBe(false);

    const session = await t.call('sessions.create', { agentId: agent.id, cwd: repo, container: { source: { kind: 'repo', allow: [itemId] } } });
    containerSessions.push(session.id);
    expect(readFileSync(join(repo, 'made.txt'), 'utf8')).toBe('made\n');
    const [made] = JSON.parse(podmanRun(['ps', '--filter', `label=switchboard.session=${session.id}`, '--format', 'json'])) as Array<{ Id: string }>;
    expect(podmanRun(['inspect', '--format', '{{.HostConfig.CapAdd}}', made!.Id])).toContain('SYS_PTRACE');
    // Allowed for this repository from now on.
    expect((await t.call('containers.repoConfig', { hostId: 'local', folder: repo })).config!.items[0]!.allowed).toBe(true);
  });
});
