/**
 * Registry agents of every kind on an SSH host, and an agent's own command for one host, against a real OpenSSH
 * server (test/support/sshd.ts). The edge is mocked: the registry and its archives are served from 127.0.0.1
 * (GitHub's place), and there is no PyPI, so a stand-in `uvx` on the remote user's PATH records what it was
 * asked to run and starts the agent.
 *   - a binary agent installed here from the registry runs on the host: the host's build (by the platform its
 *     helper reports) downloaded here once, unpacked on the host under ~/.switchboard-server/agents, started
 *     from there; an archive that tries to write outside is refused there in words, nothing written;
 *   - a host whose platform the registry has no build for gets a sentence naming the host and the builds;
 *   - a uvx agent runs through the host's uvx, pinned to what was installed here; no uvx there: a sentence;
 *   - a custom agent with its own command for the host (agents.onHost) runs that command there.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { MANIFEST_FILE, type InstallManifest } from '../../../src/main/core/registry/install-manager';
import { currentPlatformKey } from '../../../src/main/core/registry/platform-key';
import { platformKeys } from '../../../src/main/core/registry/validate';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { makeTarGz, type Member } from '../registry/helpers/archives';
import { TestServer } from '../registry/helpers/server';
import { registryDoc } from '../registry/helpers/setup';
import { agentText, makeCore, turnEnd, type TestCore } from '../acp/helpers';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the registry-agents-on-a-host tests: ${skip}`);

const HOST = 'ssh:sbtest';
const RUN = randomBytes(4).toString('hex');

/** An ACP agent that answers one prompt with where, as whom and how it runs. */
const AGENT_JS = `const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'host-agent', version: '1.0.0' } } });
  else if (msg.method === 'session/new') send({ id: msg.id, result: { sessionId: 'host-1' } });
  else if (msg.method === 'session/prompt') {
    const text = 'uid=' + process.getuid() + ' cwd=' + process.cwd() + ' dir=' + __dirname + ' args=' + process.argv.slice(2).join(',') + ' greeting=' + process.env.GREETING;
    send({ method: 'session/update', params: { sessionId: msg.params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
    send({ id: msg.id, result: { stopReason: 'end_turn' } });
  } else if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: 'not here' } });
});
`;

/** The binary agent's archive: a program (not executable in the archive) that starts the agent with the host's node. */
const binaryArchive = (): Member[] => [
  { name: 'toy/', type: 'dir' },
  { name: 'toy/bin/', type: 'dir' },
  { name: 'toy/bin/agent', content: '#!/bin/sh\nexec node "$(dirname "$0")/agent.js" "$@"\n', mode: 0o644 },
  { name: 'toy/bin/agent.js', content: AGENT_JS },
];

describe.skipIf(skip !== null)('registry agents on an SSH host', () => {
  let sshd: Sshd;
  let t: TestCore;
  let server: TestServer;
  let uid: number;
  let gid: number;
  const made: string[] = [];

  const remoteDir = (name: string): string => {
    const dir = join(sshd.home, `${name}-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir);
    chownSync(dir, uid, gid);
    made.push(dir);
    return dir;
  };
  const hostAgents = (): string => join(sshd.home, '.switchboard-server', 'agents');

  /** A prompt's answer on a new session of the agent on the host. */
  const answer = async (agentId: string, folder: string): Promise<string> => {
    const session = await t.call('sessions.create', { agentId, hostId: HOST, cwd: folder });
    const p = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'who are you' }] });
    await turnEnd(t, session.id, p.promptId, 120_000);
    return agentText(t.rec, session.id);
  };

  /** A registry entry of binary builds: `archives` by platform, the rest missing from the server. */
  const binaryEntry = (id: string, archives: Partial<Record<string, string>>) => ({
    id,
    name: `Toy ${id}`,
    version: '1.0.0',
    description: 'A binary test agent',
    license: 'MIT',
    distribution: {
      binary: Object.fromEntries(
        platformKeys.map((k) => [k, { archive: server.url(archives[k] ?? `/missing-${k}.tar.gz`), cmd: './bin/agent', args: ['--acp', k], env: { GREETING: `hi from ${k}` } }]),
      ),
    },
  });

  /** The row and manifest an install here leaves, written directly (for what the registry here would refuse). */
  const installedHere = (registryId: string, manifest: Omit<InstallManifest, 'schema' | 'registryId' | 'name' | 'version' | 'installedAt' | 'warnings'>, env: Record<string, string> = {}): string => {
    const dir = join(t.dataDir, 'agents', registryId, '1.0.0');
    mkdirSync(dir, { recursive: true });
    const full: InstallManifest = { schema: 1, registryId, name: `Agent ${registryId}`, version: '1.0.0', installedAt: Date.now(), warnings: [], ...manifest };
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(full));
    const id = registryAgentId(registryId);
    const launch = full.launch.type === 'exec' ? full.launch.path : full.launch.script;
    t.core.store.db
      .prepare("INSERT INTO agents (id, name, source, command, args_json, env_json, cwd, version, registry_id, created_at, updated_at) VALUES (?, ?, 'registry', ?, ?, ?, NULL, '1.0.0', ?, 1, 1)")
      .run(id, full.name, join(dir, launch), JSON.stringify(full.args), JSON.stringify({ ...full.env, ...env }), registryId);
    return id;
  };

  beforeAll(async () => {
    sshd = await startSshd();
    server = await new TestServer().start();
    t = await makeCore({ sshConfigFile: sshd.configFile });
    uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
    gid = Number(spawnSync('id', ['-g', sshd.user], { encoding: 'utf8' }).stdout.trim());
    await t.call('settings.set', { key: 'registry.url', value: server.url('/registry.json') });
    expect(await t.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
  }, 90_000);

  afterAll(async () => {
    await t?.dispose();
    await server?.close();
    if (sshd) for (const id of [`toy-${RUN}`, `evil-${RUN}`]) rmSync(join(hostAgents(), id), { recursive: true, force: true });
    await sshd?.stop();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it("a binary agent installed here runs on the host: the host's build, downloaded here once, unpacked there, started from there", async () => {
    const platform = currentPlatformKey()!;
    const id = `toy-${RUN}`;
    server.serve('/toy.tar.gz', makeTarGz(binaryArchive()));
    server.serve('/registry.json', registryDoc([binaryEntry(id, { [platform]: '/toy.tar.gz' })]), { type: 'application/json' });
    await t.call('registry.refresh', {});
    const installed = await t.call('registry.install', { registryId: id });
    expect(installed.status).toBe('installed');
    expect(server.requestsFor('/toy.tar.gz')).toBe(1);

    const folder = remoteDir('binary-agent');
    const installDir = join(hostAgents(), id, '1.0.0');
    expect(await answer(registryAgentId(id), folder)).toBe(`uid=${uid} cwd=${folder} dir=${join(installDir, 'toy', 'bin')} args=--acp,${platform} greeting=hi from ${platform}`);
    // Downloaded here a second time (for the host), nothing fetched by the host; the staging folder is gone.
    expect(server.requestsFor('/toy.tar.gz')).toBe(2);
    expect(readdir(join(hostAgents(), '.staging'))).toEqual([]);
    // Another session on the host uses the install there.
    expect(await answer(registryAgentId(id), remoteDir('binary-again'))).toContain(`dir=${join(installDir, 'toy', 'bin')}`);
    expect(server.requestsFor('/toy.tar.gz')).toBe(2);
  }, 240_000);

  it('an archive that would write outside its folder is refused on the host in words, and nothing of it is kept', async () => {
    const id = `evil-${RUN}`;
    const escapee = join(sshd.home, `escaped-${RUN}`);
    server.serve('/evil.tar.gz', makeTarGz([...binaryArchive(), { name: `../../../escaped-${RUN}`, content: 'gotcha' }]));
    const platform = currentPlatformKey()!;
    const agentId = installedHere(id, {
      kind: 'binary',
      launch: { type: 'exec', path: 'toy/bin/agent' },
      args: ['--acp'],
      env: {},
      installed: `${server.url('/evil.tar.gz')} (tar.gz)`,
      targets: { [platform]: { archive: server.url('/evil.tar.gz'), cmd: './bin/agent' } },
    });
    const err = await t.callError('sessions.create', { agentId, hostId: HOST, cwd: remoteDir('evil') });
    expect(err.message).toMatch(new RegExp(`could not be installed on sbtest: refused the archive: .*escapes the target folder`));
    expect(existsSync(escapee)).toBe(false);
    expect(existsSync(join(hostAgents(), id))).toBe(false);
    expect(readdir(join(hostAgents(), '.staging'))).toEqual([]);
  }, 120_000);

  it("a host whose platform the registry has no build for is told so, naming the host and the builds there are", async () => {
    const agentId = installedHere(`nobuild-${RUN}`, {
      kind: 'binary',
      launch: { type: 'exec', path: 'bin/agent' },
      args: [],
      env: {},
      installed: 'x',
      targets: { 'windows-aarch64': { archive: server.url('/toy.tar.gz'), cmd: './bin/agent' } },
    });
    const err = await t.callError('sessions.create', { agentId, hostId: HOST, cwd: remoteDir('nobuild') });
    expect(err.message).toMatch(new RegExp(`has no build for sbtest \\(${currentPlatformKey()}\\); the registry offers windows-aarch64`));
  }, 60_000);

  describe('a uvx agent', () => {
    const uvxAgent = (env: Record<string, string>): string =>
      installedHere(
        `py-${randomBytes(3).toString('hex')}`,
        { kind: 'uvx', launch: { type: 'exec', path: join('venv', 'bin', 'py-acp-agent') }, args: ['--acp'], env: {}, installed: 'py-acp-agent[extra]==1.0.0' },
        env,
      );

    it('with no uvx on the host, says so, naming the host', async () => {
      const err = await t.callError('sessions.create', { agentId: uvxAgent({ PATH: '/usr/bin:/bin' }), hostId: HOST, cwd: remoteDir('no-uvx') });
      expect(err.message).toMatch(/Python agent run with uvx, and sbtest has no uvx on its PATH/);
    }, 60_000);

    it("runs through the host's uvx, pinned to the requirement installed here", async () => {
      // The stand-in uvx (PyPI's place): records its arguments, then starts the agent.
      const bin = remoteDir('uvx-bin');
      writeFileSync(join(bin, 'agent.js'), AGENT_JS);
      writeFileSync(join(bin, 'uvx'), `#!/bin/sh\nprintf '%s\\n' "$@" > "$(dirname "$0")/uvx-args"\nexec node "$(dirname "$0")/agent.js" "$@"\n`, { mode: 0o755 });
      const folder = remoteDir('uvx-agent');
      const text = await answer(uvxAgent({ PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, GREETING: 'py' }), folder);
      expect(text).toBe(`uid=${uid} cwd=${folder} dir=${bin} args=--from,py-acp-agent[extra]==1.0.0,py-acp-agent,--acp greeting=py`);
      expect(readFileSync(join(bin, 'uvx-args'), 'utf8').split('\n')).toEqual(['--from', 'py-acp-agent[extra]==1.0.0', 'py-acp-agent', '--acp', '']);
    }, 120_000);

    it("takes the args and env set for the host alone (no command there): the host's uvx still runs it, with those", async () => {
      const bin = remoteDir('uvx-bin-own');
      writeFileSync(join(bin, 'agent.js'), AGENT_JS);
      writeFileSync(join(bin, 'uvx'), `#!/bin/sh\nexec node "$(dirname "$0")/agent.js" "$@"\n`, { mode: 0o755 });
      const agentId = uvxAgent({ PATH: '/usr/bin:/bin', GREETING: 'here' });
      await t.call('settings.set', { key: 'agents.onHost', value: { [agentId]: { [HOST]: { args: ['--on-host'], env: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, GREETING: 'there' } } } } });
      const folder = remoteDir('uvx-own');
      expect(await answer(agentId, folder)).toBe(`uid=${uid} cwd=${folder} dir=${bin} args=--from,py-acp-agent[extra]==1.0.0,py-acp-agent,--on-host greeting=there`);
    }, 120_000);
  });

  it('a custom agent with its own command for the host runs that command there (without it, its usual command fails there in words)', async () => {
    const bin = remoteDir('custom-bin');
    writeFileSync(join(bin, 'agent.js'), AGENT_JS);
    // Here the command names a program the host does not have; the host's entry names the one it has.
    const agent = await t.call('agents.addCustom', { name: 'Per host', command: 'sb-only-here-agent', args: ['--here'], env: { GREETING: 'usual' }, cwd: t.work });
    const before = await t.callError('sessions.create', { agentId: agent.id, hostId: HOST, cwd: remoteDir('custom-before') });
    expect(before.message).toMatch(/no such program "sb-only-here-agent" on sbtest/);
    await t.call('settings.set', { key: 'agents.onHost', value: { [agent.id]: { [HOST]: { command: 'node', args: [join(bin, 'agent.js'), '--there'], env: { GREETING: 'from the host entry' } } } } });
    const folder = remoteDir('custom-on-host');
    expect(await answer(agent.id, folder)).toBe(`uid=${uid} cwd=${folder} dir=${bin} args=--there greeting=from the host entry`);
  }, 120_000);
});

/** A folder's entries ([] when it is not there). */
function readdir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
