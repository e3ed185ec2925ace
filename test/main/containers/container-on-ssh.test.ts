/**
 * A session in a container on an SSH host, through AppCore: the test sshd's host (test/support/sshd.ts) runs
 * rootless Podman as its own user; the dev container CLI is carried there and run by the host's node; the
 * scenario agent runs inside the container there; a tool write and a shell write inside land in the host's
 * folder, are reviewed and reverted by the checkpoints the host's helper takes (outside the container); the
 * fence is shown as that engine enforces it; quitting stops the container and a restart reopens the session in
 * it. The network "only the agent's API" there: its proxy runs on the host, beside the container. A worktree
 * session made on the host (by Switchboard, through the host's git) runs in a container there with git working
 * inside. A host without an engine is refused in one sentence naming it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentBundle } from '../../fixtures/scenario-agent/launch';
import { initRepo } from '../../support/git-repo';
import { prepareRemotePodman, remotePodman, remotePodmanSkipReason, removeRemoteTestContainers } from '../../support/remote-podman';
import { startSshd, type Sshd } from '../../support/sshd';
import type { DevcontainerCli } from '../../../src/main/core/containers/container-lifecycle';
import { cliBundle } from '../../../src/main/core/containers/host-cli';
import { agentText, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

const skip = remotePodmanSkipReason();
if (skip) console.warn(`skipping the container-on-SSH-host tests: ${skip}`);

const HOST = 'ssh:sbtest';

interface Turn {
  promptId: string;
  folderId: string;
  changes: { from: string; to: string; files: Array<{ path: string; status: string }> } | null;
}

/**
 * A copy of the dev container CLI of the test's own: its version (a hash of its bytes) differs from every other
 * test's, and so does its folder on the host. Damaging that folder cannot break another test's container
 * start on the same host user meanwhile.
 */
function ownCli(dir: string): DevcontainerCli {
  const script = createRequire(import.meta.url).resolve('@devcontainers/cli/devcontainer.js');
  for (const rel of ['devcontainer.js', 'dist/spec-node/devContainersSpecCLI.js', 'package.json', 'scripts/updateUID.Dockerfile']) {
    const from = join(dirname(script), rel);
    if (!existsSync(from)) continue;
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    copyFileSync(from, join(dir, rel));
  }
  // Trailing white space keeps package.json the same JSON with other bytes.
  appendFileSync(join(dir, 'package.json'), `\n${' '.repeat(1 + randomBytes(2).readUInt16BE(0))}\n`);
  return { node: [process.execPath], script: join(dir, 'devcontainer.js') };
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

  it('a worktree session on the host runs in a container there: git works inside (the repository\'s git folder read-only), review and a hunk\'s revert on the host, and Switchboard commits and merges the worktree on the host', async () => {
    const gitImage = prepareRemotePodman('git');
    const repo = join(sshd.home, `wt-${randomBytes(4).toString('hex')}`);
    const hostGit = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' });
    try {
      mkdirSync(repo);
      initRepo(repo);
      writeFileSync(join(repo, 'README.md'), 'a\nb\nc\nd\ne\n');
      execFileSync('git', ['commit', '-qam', 'five lines'], { cwd: repo });
      spawnSync('chown', ['-R', `${sshd.user}:`, repo]);

      const made = await t.call('worktrees.create', { kind: 'new', repo, branch: 'sb/boxed', base: 'main', hostId: HOST });
      if (!made.ok) throw new Error(JSON.stringify(made.error));
      const wt = made.value.worktree.path;
      expect(wt).toBe(`${repo}.worktrees/sb-boxed`);
      expect(made.value.worktree.hostId).toBe(HOST);
      expect(hostGit(wt, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('sb/boxed');
      // Worktrees are known by path: the same path asked as one of this machine's does not take the host's over.
      expect(await t.call('worktrees.create', { kind: 'existing', path: wt })).toMatchObject({ ok: false, error: { kind: 'path_exists', path: wt } });
      expect(await t.call('worktrees.describe', { paths: [wt] })).toMatchObject({ worktrees: { [wt]: { hostId: HOST, branch: 'sb/boxed' } } });

      const session = await t.call('sessions.create', { agentId, hostId: HOST, cwd: wt, container: { source: { kind: 'image', image: gitImage }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
      sessions.push(session.id);
      const { fence } = await t.call('containers.fence', { sessionId: session.id });
      expect(fence!.settings.find((s) => s.setting === 'files')!.how).toContain(`${join(repo, '.git')} read-only`);

      const inside = async (script: string): Promise<string> => {
        const before = agentText(t.rec, session.id).length;
        expect((await promptAndWait(t, session.id, `terminal ${JSON.stringify({ command: 'sh', args: ['-c', script], cwd: wt })}`, 60_000)).error).toBeNull();
        const said = agentText(t.rec, session.id).slice(before);
        return (JSON.parse(said.slice(said.indexOf('{'))) as { output: string }).output;
      };
      const git = 'git --no-pager -c safe.directory=* -c color.ui=never ';
      expect(await inside(`${git}rev-parse --abbrev-ref HEAD; ${git}log --format=%s -1; echo status:; ${git}status --short`)).toBe('sb/boxed\nfive lines\nstatus:\n');

      // A tool write and a shell write (two hunks of README.md, a new file); git inside sees them; the repository's git folder stays read-only.
      expect((await promptAndWait(t, session.id, `write ${wt}/feature.txt made in the box`)).error).toBeNull();
      const seen = await inside(`printf 'A\\nb\\nc\\nd\\nE\\n' > README.md && mkdir -p notes && echo from a shell inside > notes/shell.txt; ${git}status --short; echo hook > ${repo}/.git/hooks/post-commit && echo WROTE-HOOK || echo hook refused`);
      expect(seen).toContain(' M README.md');
      expect(seen).toContain('?? feature.txt');
      expect(seen).toContain('?? notes/');
      expect(seen).toContain('hook refused');
      expect(existsSync(join(repo, '.git/hooks/post-commit'))).toBe(false);

      // Reviewed from the host's side (its helper's checkpoints), one hunk reverted there.
      await t.core.checkpoints.idle();
      const { turns } = (await t.call('checkpoints.listTurns', { sessionId: session.id })) as { turns: Turn[] };
      const changed = (n: number): Turn => turns.at(n)!;
      expect(changed(-2).changes!.files).toMatchObject([{ path: 'feature.txt', status: 'added' }]);
      expect(existsSync(join(sshd.home, '.switchboard-server', 'checkpoints', changed(-1).folderId, 'HEAD'))).toBe(true);
      const shell = changed(-1).changes!;
      expect(shell.files.map((f) => f.path).sort()).toEqual(['README.md', 'notes/shell.txt']);
      const diff = await t.call('checkpoints.fileDiff', { from: shell.from, to: shell.to, path: 'README.md' });
      expect(diff.hunks).toHaveLength(2);
      await t.call('checkpoints.revert', { from: shell.from, to: shell.to, scope: { kind: 'hunk', path: 'README.md', hunk: 1 } });
      expect(readFileSync(join(wt, 'README.md'), 'utf8')).toBe('A\nb\nc\nd\ne\n');

      // Switchboard commits on the host (the repository's git folder is written there, not from inside); git inside sees the commit.
      const status = await t.call('worktrees.status', { path: wt });
      if (!status.ok) throw new Error(JSON.stringify(status.error));
      expect(status.value.files.map((f) => f.path).sort()).toEqual(['README.md', 'feature.txt', 'notes/shell.txt']);
      const committed = await t.call('worktrees.commit', { path: wt, message: 'Add the feature', files: ['README.md', 'feature.txt', 'notes/shell.txt'] });
      if (!committed.ok) throw new Error(JSON.stringify(committed.error));
      expect(hostGit(repo, 'log', '--format=%s', '-1', 'sb/boxed').trim()).toBe('Add the feature');
      expect(await inside(`${git}log --format=%s -1; echo status:; ${git}status --short`)).toBe('Add the feature\nstatus:\n');

      // Merged into main on the host: its checkout has the agent's files.
      const merged = await t.call('worktrees.merge', { path: wt, strategy: 'ff' });
      if (!merged.ok) throw new Error(JSON.stringify(merged.error));
      expect(hostGit(repo, 'log', '--format=%s', '-1', 'main').trim()).toBe('Add the feature');
      expect(readFileSync(join(repo, 'feature.txt'), 'utf8')).toBe('made in the box');
      expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('A\nb\nc\nd\ne\n');
    } finally {
      for (const p of [repo, `${repo}.worktrees`]) rmSync(p, { recursive: true, force: true });
    }
  });

  it('quitting stops the container on the host; the next start reopens the session and starts it again (a damaged copy of the CLI there copied anew); a shell tab opens inside', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-ctr-ssh-data-'));
    const cores: TestCore[] = [];
    const cli = ownCli(join(dataDir, 'cli'));
    const core = async (): Promise<TestCore> => {
      const c = await makeCore({ sshConfigFile: sshd.configFile, dataDir, containers: { cli } });
      cores.push(c);
      expect(await c.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
      return c;
    };
    const state = (id: string): string => remotePodman(['inspect', '--format', '{{.State.Status}}', id]).trim();
    const cliRoot = join(sshd.home, '.switchboard-server', 'devcontainers-cli');
    const version = (await cliBundle(cli.script)).version;
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
      const bundleFile = join(cliRoot, version, 'dist/spec-node/devContainersSpecCLI.js');
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
      rmSync(join(cliRoot, version), { recursive: true, force: true });
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
