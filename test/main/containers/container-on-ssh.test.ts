/**
 * A session in a container on an SSH host, through AppCore: the test sshd's host (test/support/sshd.ts) runs
 * rootless Podman as its own user; the dev container CLI is carried there and run by the host's node; the
 * scenario agent runs inside the container there; a tool write and a shell write inside land in the host's
 * folder, are reviewed and reverted by the checkpoints the host's helper takes (outside the container); the
 * fence is shown as that engine enforces it; quitting stops the container and a restart reopens the session in
 * it. The network "only the agent's API" there: its proxy runs on the host, beside the container. A host
 * without an engine is refused in one sentence naming it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentBundle } from '../../fixtures/scenario-agent/launch';
import { prepareRemotePodman, remotePodman, remotePodmanSkipReason, removeRemoteTestContainers } from '../../support/remote-podman';
import { startSshd, type Sshd } from '../../support/sshd';
import { agentText, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

const skip = remotePodmanSkipReason();
if (skip) console.warn(`skipping the container-on-SSH-host tests: ${skip}`);

const HOST = 'ssh:sbtest';

interface Turn {
  promptId: string;
  folderId: string;
  changes: { from: string; to: string; files: Array<{ path: string; status: string }> } | null;
}

describe.skipIf(skip !== null)('a session in a container on an SSH host (rootless Podman of the host\'s user)', { timeout: 300_000 }, () => {
  let sshd: Sshd;
  let t: TestCore;
  let image: string;
  let folder: string;
  let secret: string;
  let agentId: string;
  const sessions: string[] = [];

  const owned = (path: string): void => {
    const uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
    chownSync(path, uid, uid);
  };

  beforeAll(async () => {
    image = prepareRemotePodman('node');
    sshd = await startSshd();
    await sshd.setKnownHosts('right');
    t = await makeCore({ sshConfigFile: sshd.configFile, checkpoints: true });
    const tag = randomBytes(4).toString('hex');
    folder = join(sshd.home, `ctr-${tag}`);
    secret = join(sshd.home, `secret-${tag}.txt`);
    mkdirSync(folder);
    owned(folder);
    for (const [path, text] of [
      [join(folder, 'README.md'), 'hello\n'],
      [secret, 'the host user\'s own file\n'],
    ] as const) {
      writeFileSync(path, text);
      owned(path);
    }
    expect(await t.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
    agentId = (await t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [scenarioAgentBundle()], env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, cwd: t.work })).id;
  }, 240_000);

  afterAll(async () => {
    await t?.dispose();
    await sshd?.stop();
    if (skip === null) for (const id of sessions) removeRemoteTestContainers(id);
    for (const p of [folder, secret]) if (p) rmSync(p, { recursive: true, force: true });
  });

  it('runs the agent inside a container of the host\'s user; its writes are reviewed and reverted from the host; the fence is shown', async () => {
    const engine = await t.call('containers.engine', { hostId: HOST });
    expect(engine).toMatchObject({ hostId: HOST, problem: null, engine: expect.stringMatching(/^podman \d/) });

    const session = await t.call('sessions.create', { agentId, hostId: HOST, cwd: folder, container: { source: { kind: 'image', image }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
    sessions.push(session.id);
    expect(session.hostId).toBe(`container:${session.id}@${HOST}`);
    expect((await promptAndWait(t, session.id, 'say hello')).error).toBeNull();

    // The container is the remote user's (rootless, in its own store), not one of this machine's root.
    const listed = JSON.parse(remotePodman(['ps', '--filter', `label=switchboard.session=${session.id}`, '--format', 'json'])) as Array<{ Id: string }>;
    expect(listed).toHaveLength(1);
    expect(remotePodman(['exec', listed[0]!.Id, 'sh', '-c', 'ps -eo args'])).toContain('scenario-agent');

    // A tool write (done in the host's folder by its helper) and a shell write by the agent inside.
    expect((await promptAndWait(t, session.id, `write ${folder}/tool.txt from the tool`)).error).toBeNull();
    const script = `mkdir -p notes && echo from a shell inside > notes/shell.txt && cat /etc/os-release; cat ${secret} || echo "no such secret"`;
    expect((await promptAndWait(t, session.id, `terminal ${JSON.stringify({ command: 'sh', args: ['-c', script], cwd: folder })}`)).error).toBeNull();
    const said = agentText(t.rec, session.id);
    expect(said).toContain('Switchboard test image');
    // The host user's own files beside the folder are not in the fence.
    expect(said).toContain('no such secret');
    expect(said).not.toContain("the host user's own file");
    // Network none: a server on the host's loopback is not reached from inside.
    const server = createServer((c) => c.end('reached\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const probe = `const s=require('net').connect(${port},'127.0.0.1');s.on('data',d=>console.log('got '+d));s.on('error',e=>console.log('loopback: '+e.code))`;
      expect((await promptAndWait(t, session.id, `terminal ${JSON.stringify({ command: 'node', args: ['-e', probe], cwd: folder })}`)).error).toBeNull();
      expect(agentText(t.rec, session.id)).toMatch(/loopback: E(CONNREFUSED|NETUNREACH)/);
      expect(agentText(t.rec, session.id)).not.toContain('got reached');
    } finally {
      server.close();
    }
    expect(readFileSync(join(folder, 'tool.txt'), 'utf8')).toBe('from the tool');
    expect(readFileSync(join(folder, 'notes/shell.txt'), 'utf8')).toBe('from a shell inside\n');

    await t.core.checkpoints.idle();
    const { turns } = (await t.call('checkpoints.listTurns', { sessionId: session.id })) as { turns: Turn[] };
    const [, toolTurn, shellTurn] = turns;
    expect(toolTurn!.changes!.files).toMatchObject([{ path: 'tool.txt', status: 'added' }]);
    // Taken on the host by its helper (the side that owns the files), into its shadow repository there; none here.
    expect(existsSync(join(sshd.home, '.switchboard-server', 'checkpoints', toolTurn!.folderId, 'HEAD'))).toBe(true);
    expect(existsSync(join(t.dataDir, 'checkpoints', toolTurn!.folderId))).toBe(false);
    expect(shellTurn!.changes!.files).toMatchObject([{ path: 'notes/shell.txt', status: 'added' }]);
    expect(await t.call('checkpoints.fileDiff', { from: shellTurn!.changes!.from, to: shellTurn!.changes!.to, path: 'notes/shell.txt' })).toMatchObject({ newText: 'from a shell inside\n' });
    await t.call('checkpoints.revert', { from: shellTurn!.changes!.from, to: shellTurn!.changes!.to, scope: { kind: 'all' } });
    await t.call('checkpoints.revert', { from: toolTurn!.changes!.from, to: toolTurn!.changes!.to, scope: { kind: 'all' } });
    expect(existsSync(join(folder, 'notes/shell.txt'))).toBe(false);
    expect(existsSync(join(folder, 'tool.txt'))).toBe(false);
    expect(readFileSync(join(folder, 'README.md'), 'utf8')).toBe('hello\n');

    // The fence as the host's engine enforces it: rootless Podman on cgroups v1 cannot set limits, and says so.
    const { fence } = await t.call('containers.fence', { sessionId: session.id });
    expect(fence).toMatchObject({ network: 'none', memoryMiB: 512, cpus: 1, engine: expect.stringMatching(/^podman .*\(rootless\)$/) });
    const byName = Object.fromEntries(fence!.settings.map((s) => [s.setting, s]));
    expect(byName.files).toMatchObject({ enforced: true, how: expect.stringContaining(`only ${folder} mounted`) });
    expect(byName.files!.how).toContain('nothing else of the host sbtest');
    expect(byName.network).toMatchObject({ enforced: true });
    const v2 = remotePodman(['info', '--format', '{{.Host.CgroupsVersion}}']).trim() === 'v2';
    expect(byName.memory!.enforced).toBe(v2);
    if (!v2) expect(byName.memory!.how).toMatch(/not enforced: rootless Podman cannot set limits without cgroups v2/);

    // Settings lists the host's containers of Switchboard's.
    const { containers } = await t.call('containers.list', { hostId: HOST });
    expect(containers.map((c) => [c.sessionId, c.state])).toContainEqual([session.id, 'running']);
  });

  it('quitting stops the container on the host; the next start reopens the session and starts it again (a damaged copy of the CLI there copied anew); a shell tab opens inside', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-ctr-ssh-data-'));
    const cores: TestCore[] = [];
    const core = async (): Promise<TestCore> => {
      const c = await makeCore({ sshConfigFile: sshd.configFile, dataDir });
      cores.push(c);
      expect(await c.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
      return c;
    };
    const state = (id: string): string => remotePodman(['inspect', '--format', '{{.State.Status}}', id]).trim();
    try {
      let c = await core();
      // The agent's store is the container's own (its /tmp outlives a stop): the reopen loads from it.
      const env = { SCENARIO_CAPS: 'loadSession', SCENARIO_STORE: '/tmp/scenario-store.json', PATH: '/usr/local/bin:/usr/bin:/bin' };
      const agent = (await c.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [scenarioAgentBundle()], env, cwd: c.work })).id;
      const session = await c.call('sessions.create', { agentId: agent, hostId: HOST, cwd: folder, container: { source: { kind: 'image', image }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
      sessions.push(session.id);
      expect((await promptAndWait(c, session.id, 'say first')).error).toBeNull();
      const [listed] = JSON.parse(remotePodman(['ps', '--filter', `label=switchboard.session=${session.id}`, '--format', 'json'])) as Array<{ Id: string }>;
      await c.dispose();
      expect(state(listed!.Id)).toMatch(/exited|stopped/);
      // The CLI's copy on the host damaged meanwhile (a disk error, someone's edit): it is not run, but copied again.
      const cliRoot = join(sshd.home, '.switchboard-server', 'devcontainers-cli');
      const copies = readdirSync(cliRoot).filter((n) => /^[0-9a-f]{16}$/.test(n));
      expect(copies.length).toBeGreaterThan(0);
      const bundleFile = join(cliRoot, copies[0]!, 'dist/spec-node/devContainersSpecCLI.js');
      writeFileSync(bundleFile, `process.exit(7);\n${readFileSync(bundleFile, 'utf8')}`);

      c = await core();
      const reopened = await c.call('sessions.reopen', { sessionId: session.id });
      expect(reopened.hostId).toBe(session.hostId);
      expect(state(listed!.Id)).toBe('running');
      expect(readFileSync(bundleFile, 'utf8')).not.toContain('process.exit(7)');
      expect((await promptAndWait(c, session.id, 'say still inside')).error).toBeNull();
      expect(agentText(c.rec, session.id)).toContain('still inside');
      const shell = await c.call('pty.createShell', { cols: 80, rows: 24, cwd: folder, hostId: session.hostId });
      await c.call('pty.write', { id: shell.id, data: 'cat /etc/os-release; pwd\n' });
      await c.rec.until(() => c.rec.of('pty.data').filter((d) => d.id === shell.id).map((d) => d.data).join('').includes('Switchboard test image'), 'the shell inside to answer');
      await c.call('pty.kill', { id: shell.id });
    } finally {
      for (const c of cores) await c.dispose().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('"only the agent\'s API" on the host: its proxy runs there (a process of the host\'s user); a listed server is reached through it, another refused, nothing directly; it stops at quit and starts again on reopen (a damaged copy there copied anew)', async () => {
    // Servers on the host's side (the test sshd's host is this machine): the API on the list, another not.
    const api = createHttpServer((req, res) => res.end(`the API answers ${req.method} ${req.url}\n`));
    const other = createServer((c) => c.end('not the API\n'));
    await Promise.all([new Promise<void>((r) => api.listen(0, '0.0.0.0', r)), new Promise<void>((r) => other.listen(0, '0.0.0.0', r))]);
    const apiPort = (api.address() as AddressInfo).port;
    const otherPort = (other.address() as AddressInfo).port;
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-ctr-ssh-api-'));
    const cores: TestCore[] = [];
    const core = async (): Promise<TestCore> => {
      const c = await makeCore({ sshConfigFile: sshd.configFile, dataDir });
      cores.push(c);
      expect(await c.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
      return c;
    };
    const proxies = (): string[] => spawnSync('ps', ['-u', sshd.user, '-o', 'args='], { encoding: 'utf8' }).stdout.split('\n').filter((l) => /api-proxy-[0-9a-f]{16}\.cjs/.test(l));
    // From inside: a plain-HTTP request to the listed server through the proxy, a tunnel to the other one, and a direct connection.
    const probe = [
      "const http = require('http'), net = require('net'); const u = new URL(process.env.HTTP_PROXY); const say = (k, v) => console.log(k + ': ' + v);",
      `const direct = () => net.connect(${apiPort}, '127.0.0.1').on('data', (d) => say('DIRECT', 'got ' + d)).on('error', (e) => say('DIRECT', e.code));`,
      `const tunnel = () => { const s = net.connect(+u.port, u.hostname, () => s.write('CONNECT 127.0.0.1:${otherPort} HTTP/1.1\\r\\n\\r\\n')); let b = ''; s.on('data', (d) => (b += d)); s.on('close', () => { say('UNLISTED', b.split('\\r\\n')[0]); direct(); }); };`,
      `http.get({ host: u.hostname, port: +u.port, path: 'http://127.0.0.1:${apiPort}/v1/messages', headers: { host: '127.0.0.1:${apiPort}' } }, (r) => { let b = ''; r.on('data', (d) => (b += d)); r.on('end', () => { say('LISTED', r.statusCode + ' ' + b.trim()); tunnel(); }); }).on('error', (e) => { say('LISTED', e.message); tunnel(); });`,
    ].join('\n');
    const probeThrough = async (c: TestCore, sessionId: string): Promise<string> => {
      const before = agentText(c.rec, sessionId).length;
      expect((await promptAndWait(c, sessionId, `terminal ${JSON.stringify({ command: 'node', args: ['-e', probe], cwd: folder })}`)).error).toBeNull();
      return agentText(c.rec, sessionId).slice(before);
    };
    try {
      let c = await core();
      const env = { SCENARIO_CAPS: 'loadSession', SCENARIO_STORE: '/tmp/scenario-store.json', PATH: '/usr/local/bin:/usr/bin:/bin' };
      const agent = (await c.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [scenarioAgentBundle()], env, cwd: c.work })).id;
      const allow = [`127.0.0.1:${apiPort}`];
      const session = await c.call('sessions.create', { agentId: agent, hostId: HOST, cwd: folder, container: { source: { kind: 'image', image }, fence: { network: 'api', allowHosts: allow, memoryMiB: 512, cpus: 1 } } });
      sessions.push(session.id);
      const [listed] = JSON.parse(remotePodman(['ps', '--filter', `label=switchboard.session=${session.id}`, '--format', 'json'])) as Array<{ Id: string }>;
      expect(remotePodman(['inspect', '--format', '{{.HostConfig.NetworkMode}}', listed!.Id]).trim()).toBe('none');
      const { fence } = await c.call('containers.fence', { sessionId: session.id });
      expect(fence!.settings.find((s) => s.setting === 'network')).toMatchObject({ enforced: true, how: expect.stringContaining(`only to ${allow[0]}`) });

      // The proxy is a process of the host's user, its allow-list not on its command line; its socket's folder is private.
      const running = proxies();
      expect(running).toHaveLength(1);
      expect(running[0]).not.toContain(String(apiPort));
      const netDir = join(sshd.home, '.switchboard-server', 'containers', `${session.id}.net`);
      expect(statSync(netDir).mode & 0o777).toBe(0o700);

      const said = await probeThrough(c, session.id);
      expect(said).toContain('LISTED: 200 the API answers GET /v1/messages');
      expect(said).toContain('UNLISTED: HTTP/1.1 403 Forbidden');
      expect(said).toMatch(/DIRECT: (ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)/);
      expect(said).not.toContain('not the API');

      // Quitting stops the container and its proxy on the host; the reopen starts both again.
      await c.dispose();
      expect(proxies()).toEqual([]);
      // The proxy's copy on the host damaged meanwhile: it is not run, but copied again.
      const copy = /\S*\/api-proxy-[0-9a-f]{16}\.cjs/.exec(running[0]!)![0];
      expect(copy).toBe(join(sshd.home, '.switchboard-server', 'api-proxy', copy.split('/').at(-1)!));
      writeFileSync(copy, `process.exit(7);\n${readFileSync(copy, 'utf8')}`);
      c = await core();
      await c.call('sessions.reopen', { sessionId: session.id });
      expect(proxies()).toHaveLength(1);
      expect(readFileSync(copy, 'utf8')).not.toContain('process.exit(7)');
      const again = await probeThrough(c, session.id);
      expect(again).toContain('LISTED: 200 the API answers GET /v1/messages');
      expect(again).toContain('UNLISTED: HTTP/1.1 403 Forbidden');
    } finally {
      for (const c of cores) await c.dispose().catch(() => {});
      api.close();
      other.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a hostile devcontainer.json on the host is refused before anything of it runs; an image asking for a host mount is refused by the engine guard there', async () => {
    const tag = randomBytes(4).toString('hex');
    const repo = join(sshd.home, `hostile-${tag}`);
    const pwned = join(sshd.home, `pwned-${tag}`);
    const exposed = join(sshd.home, `exposed-${tag}`);
    const context = join(sshd.home, `evil-image-${tag}`);
    const evil = `localhost/switchboard-test:evil-${tag}`;
    try {
      for (const d of [repo, exposed, context]) {
        mkdirSync(d);
        owned(d);
      }
      writeFileSync(join(exposed, 'secret'), 'host secret');
      const config = { image, initializeCommand: `touch ${pwned}`, mounts: [`source=${sshd.home},target=/h,type=bind`], runArgs: ['--privileged'], postCreateCommand: `touch ${pwned}` };
      writeFileSync(join(repo, '.devcontainer.json'), JSON.stringify(config));
      owned(join(repo, '.devcontainer.json'));
      const before = remotePodman(['ps', '-a', '-q']);
      const refused = await t.callError('sessions.create', { agentId, hostId: HOST, cwd: repo, container: { source: { kind: 'repo', allow: [] }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
      expect(refused.message).toMatch(/^the dev container configuration asks for what would lower the fence: /);
      for (const key of ['initializeCommand', 'mounts', 'runArgs']) expect(refused.message).toContain(`${key} (`);
      expect(existsSync(pwned)).toBe(false);
      expect(remotePodman(['ps', '-a', '-q'])).toBe(before);

      // An image whose own metadata asks for a host mount and privileges: the guard on the host refuses the engine's run.
      const metadata = JSON.stringify([{ mounts: [`source=${exposed},target=/exposed,type=bind`], privileged: true, postCreateCommand: 'cp /exposed/secret stolen.txt' }]);
      writeFileSync(join(context, 'Containerfile'), `FROM ${image}\nLABEL devcontainer.metadata=${JSON.stringify(metadata)}\n`);
      owned(join(context, 'Containerfile'));
      remotePodman(['build', '-q', '-t', evil, '-f', join(context, 'Containerfile'), context]);
      const work = join(sshd.home, `evil-work-${tag}`);
      mkdirSync(work);
      owned(work);
      const guarded = await t.callError('sessions.create', { agentId, hostId: HOST, cwd: work, container: { source: { kind: 'image', image: evil }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
      expect(guarded.message).toMatch(/Switchboard refused to run the engine: the mount "source=.*exposed-.*" would lower the session's fence/);
      expect(existsSync(join(work, 'stolen.txt'))).toBe(false);
      expect(remotePodman(['ps', '-a', '-q'])).toBe(before);
      rmSync(work, { recursive: true, force: true });
    } finally {
      spawnSync('su', ['-', sshd.user, '-c', `podman rmi -f ${evil}`]);
      for (const p of [repo, pwned, exposed, context]) rmSync(p, { recursive: true, force: true });
    }
  });

  it('a host without a container engine is refused in one sentence naming the host', async () => {
    const hostId = `ssh:${sshd.noEngineAlias}`;
    expect(await t.call('hosts.connect', { hostId })).toMatchObject({ ok: true });
    expect(await t.call('containers.engine', { hostId })).toMatchObject({ engine: null, problem: `No container engine was found on the host ${sshd.noEngineAlias}: install Podman or Docker.` });
    const e = await t.callError('sessions.create', { agentId, hostId, cwd: folder, container: { source: { kind: 'image', image }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
    expect(e).toMatchObject({ code: 'unavailable', message: `No container engine was found on the host ${sshd.noEngineAlias}: install Podman or Docker.` });
  });
});
