/**
 * Agents on an SSH host, against a real OpenSSH server (test/support/sshd.ts): a real third-party agent (the
 * registry's Claude Code, placed in the remote user's home) runs a turn there against the fake LLM, asks
 * permission for its write, streams its reply back, and its file lands in the remote folder as the remote
 * user's; a custom agent whose program is not on the host fails in words naming the host; an npm registry
 * agent installed here runs on the host through the host's own npx, pinned to the version installed here
 * (binary and uvx registry agents, and agents' own commands per host: host-registry-agents.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { MANIFEST_FILE, type InstallManifest } from '../../../src/main/core/registry/install-manager';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index';
import { claudeCodeLaunch, isAgentInstalled, placeAgentOnHost, requireOrSkipAgent } from '../../support/real-agents/index';
import { makeNpmTarball } from '../registry/helpers/archives';
import { TestServer } from '../registry/helpers/server';
import { agentText, makeCore, turnEnd, type TestCore } from '../acp/helpers';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the agents-on-a-host tests: ${skip}`);

const HOST = 'ssh:sbtest';

describe.skipIf(skip !== null)('agents on an SSH host', () => {
  let sshd: Sshd;
  let t: TestCore;
  let uid: number;
  let gid: number;
  const made: string[] = [];

  /** A folder in the remote user's home, theirs. */
  const remoteDir = (name: string): string => {
    const dir = join(sshd.home, `${name}-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir);
    chownSync(dir, uid, gid);
    made.push(dir);
    return dir;
  };

  beforeAll(async () => {
    sshd = await startSshd();
    t = await makeCore({ sshConfigFile: sshd.configFile });
    uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
    gid = Number(spawnSync('id', ['-g', sshd.user], { encoding: 'utf8' }).stdout.trim());
    expect(await t.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
  }, 90_000);

  afterAll(async () => {
    await t?.dispose();
    await sshd?.stop();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  describe.skipIf(!isAgentInstalled('claude-code') && !requireOrSkipAgent('claude-code'))('a real agent on the host', () => {
    let llm: FakeLlm;
    beforeAll(async () => {
      llm = await startFakeLlm();
    });
    afterAll(async () => {
      await llm?.close();
    });

    it('runs a turn there: its permission asked here, its reply streamed back, its file written in the remote folder as the remote user', async () => {
      const folder = remoteDir('real-agent');
      const home = remoteDir('claude-home');
      for (const d of ['.config', '.cache', join('.local', 'share'), join('.local', 'state')]) {
        mkdirSync(join(home, d), { recursive: true });
        chownSync(join(home, d), uid, gid);
      }
      const entry = placeAgentOnHost('claude-code', { home: sshd.home, uid, gid });
      // The fake LLM listens on this machine's 127.0.0.1, which the loopback host shares.
      const { env } = claudeCodeLaunch({ llmUrl: llm.url, home });
      delete env['IS_SANDBOX']; // for root only; the agent runs as the remote user
      const agent = await t.call('agents.addCustom', { name: 'Claude Code on the host', command: 'node', args: [entry], env, cwd: t.work });

      const file = join(folder, 'hello.txt');
      llm.when('make hello', [{ kind: 'write', path: file, content: 'Hi from the host' }]);
      const session = await t.call('sessions.create', { agentId: agent.id, hostId: HOST, cwd: folder });
      expect(session).toMatchObject({ hostId: HOST, cwd: folder });
      const asked = t.rec.of('session.permission').length;
      const p = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'make hello please' }] });
      const req = await t.rec.until(() => t.rec.of('session.permission').slice(asked).find((r) => r.sessionId === session.id), 'the agent to ask permission for its write', 120_000);
      const allow = req.options.find((o) => o.kind === 'allow_once');
      expect(allow, JSON.stringify(req.options)).toBeDefined();
      await t.call('sessions.respondPermission', { sessionId: session.id, requestId: req.requestId, outcome: 'selected', optionId: allow!.optionId });
      const end = await turnEnd(t, session.id, p.promptId, 120_000);
      expect(end.stopReason, llm.describeLog()).toBe('end_turn');
      expect(agentText(t.rec, session.id)).toContain('fake-llm: all 1 step(s) done');
      expect(readFileSync(file, 'utf8')).toBe('Hi from the host');
      expect(statSync(file).uid).toBe(uid);
      // The turn went to the fake LLM from the host's agent (not answered by anything here).
      expect(llm.turnRequests().some((r) => r.promptText?.includes('make hello'))).toBe(true);
    }, 300_000);
  });

  it('a custom agent whose program is not on the host fails in words naming the host', async () => {
    const folder = remoteDir('custom-missing');
    const agent = await t.call('agents.addCustom', { name: 'Not there', command: 'sb-no-such-agent-here', args: ['--acp'], env: {}, cwd: t.work });
    const err = await t.callError('sessions.create', { agentId: agent.id, hostId: HOST, cwd: folder });
    expect(err.message).toMatch(/no such program "sb-no-such-agent-here" on sbtest/);
  }, 60_000);

  describe('an npm registry agent', () => {
    const PKG = '@switchboard-test/host-acp-agent';
    // Answers initialize, session/new and one prompt with where and as whom it runs.
    const AGENT_JS = `#!/usr/bin/env node
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'host-acp-agent', version: require('../package.json').version } } });
  else if (msg.method === 'session/new') send({ id: msg.id, result: { sessionId: 'host-1' } });
  else if (msg.method === 'session/prompt') {
    const text = 'uid=' + process.getuid() + ' cwd=' + process.cwd() + ' args=' + process.argv.slice(2).join(',') + ' greeting=' + process.env.HOST_GREETING;
    send({ method: 'session/update', params: { sessionId: msg.params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
    send({ id: msg.id, result: { stopReason: 'end_turn' } });
  } else if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: 'not here' } });
});
`;
    let npm: TestServer;

    beforeAll(async () => {
      npm = await new TestServer().start();
      const { tgz, integrity, shasum } = makeNpmTarball({
        'package.json': { content: JSON.stringify({ name: PKG, version: '1.2.3', bin: { 'host-acp-agent': 'bin/agent.js' } }) },
        'bin/agent.js': { content: AGENT_JS, mode: 0o755 },
      });
      npm.serve('/tarballs/host-acp-agent-1.2.3.tgz', tgz);
      npm.serve(
        `/${PKG}`,
        JSON.stringify({
          name: PKG,
          'dist-tags': { latest: '1.2.3' },
          versions: { '1.2.3': { name: PKG, version: '1.2.3', bin: { 'host-acp-agent': 'bin/agent.js' }, dist: { tarball: npm.url('/tarballs/host-acp-agent-1.2.3.tgz'), integrity, shasum } } },
        }),
        { type: 'application/json' },
      );
    });
    afterAll(async () => {
      await npm?.close();
    });

    /** The row and manifest a finished `registry.install` leaves here (its node and script are this machine's). */
    const installedHere = (registryId: string, kind: InstallManifest['kind'], env: Record<string, string>): string => {
      const dir = join(t.dataDir, 'agents', registryId, '1.2.3');
      mkdirSync(dir, { recursive: true });
      const script = join('node_modules', ...PKG.split('/'), 'bin', 'agent.js');
      const manifest: InstallManifest = {
        schema: 1,
        registryId,
        name: `Host agent (${kind})`,
        version: '1.2.3',
        kind,
        installedAt: Date.now(),
        launch: kind === 'npx' ? { type: 'node', script, nodePath: '/nowhere/bin/node' } : { type: 'exec', path: 'bin/agent' },
        args: ['--acp'],
        env: {},
        installed: `${PKG}@1.2.3`,
        warnings: [],
      };
      writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
      const id = registryAgentId(registryId);
      t.core.store.db
        .prepare(
          "INSERT INTO agents (id, name, source, command, args_json, env_json, cwd, version, registry_id, created_at, updated_at) VALUES (?, ?, 'registry', ?, ?, ?, NULL, '1.2.3', ?, 1, 1)",
        )
        .run(id, manifest.name, kind === 'npx' ? '/nowhere/bin/node' : join(dir, 'bin/agent'), JSON.stringify(kind === 'npx' ? [join(dir, script), '--acp'] : ['--acp']), JSON.stringify(env), registryId);
      return id;
    };

    it('runs through the host\'s npx, pinned to the version installed here, with the registry\'s args, as the remote user in the remote folder', async () => {
      const folder = remoteDir('npx-agent');
      const npmCache = remoteDir('npm-cache');
      const agentId = installedHere('host-npx', 'npx', { HOST_GREETING: 'hello', npm_config_registry: npm.url('/'), npm_config_cache: npmCache, npm_config_update_notifier: 'false' });
      const session = await t.call('sessions.create', { agentId, hostId: HOST, cwd: folder });
      const p = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'who are you' }] });
      await turnEnd(t, session.id, p.promptId, 120_000);
      expect(agentText(t.rec, session.id)).toBe(`uid=${uid} cwd=${folder} args=--acp greeting=hello`);
      // The host's npm fetched exactly the version installed here.
      expect(npm.requestsFor('/tarballs/host-acp-agent-1.2.3.tgz')).toBe(1);
    }, 180_000);
  });
});
