/**
 * The network "only the agent's API" through the app, on a real Podman: a real agent (Claude Code, the
 * registry's ACP adapter) runs in a container with no network and reaches its model (the fake LLM, on an
 * address of this machine) only through Switchboard's proxy, whose allow-list is the agent's API host, taken
 * from the agent's own ANTHROPIC_BASE_URL. From the same container, another server of this machine is refused
 * by the proxy, and a direct connection reaches nothing.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm';
import { podmanEnv, podmanRun, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';
import { agentEntryPath, agentInstallDir, REAL_AGENTS, requireOrSkipAgent } from '../../support/real-agents/agents';
import { agentText, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

const hostIp = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
const skip = podmanSkipReason() ?? (hostIp ? null : 'this machine has no address other than loopback');
const haveAgent = skip === null && requireOrSkipAgent('claude-code');

describe.skipIf(skip !== null || !haveAgent)('a container with the network "only the agent\'s API" (real Podman, real agent)', { timeout: 300_000 }, () => {
  let root: string;
  let llm: FakeLlm;
  let other: Server;
  let otherPort: number;
  let t: TestCore;
  const sessions: string[] = [];

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-capi-')));
    llm = await startFakeLlm({ host: hostIp! });
    other = createServer((s) => s.end('not the API\n'));
    await new Promise<void>((r) => other.listen(0, hostIp, r));
    otherPort = (other.address() as { port: number }).port;
    t = await makeCore({ dataDir: join(root, 'data'), containers: { engineEnv: podmanEnv() } });
  }, 60_000);

  afterAll(async () => {
    await t?.dispose();
    other?.close();
    await llm?.close();
    if (skip === null) for (const id of sessions) removeTestContainers(id);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("the agent reaches its model through the proxy only; another host is refused and a direct connection fails", async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    const agent = await t.call('agents.addCustom', {
      name: 'Claude Code',
      command: 'node',
      args: [agentEntryPath('claude-code'), ...REAL_AGENTS['claude-code'].args],
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: '/tmp/agent-home',
        TMPDIR: '/tmp',
        ANTHROPIC_BASE_URL: llm.url,
        ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        IS_SANDBOX: '1',
      },
      cwd: repo,
    });
    // The allow-list offered is the agent's API: the host of its ANTHROPIC_BASE_URL.
    const offered = (await t.call('containers.apiHosts', { agentId: agent.id })).hosts;
    expect(offered).toEqual([`${hostIp}:${llm.port}`]);
    await t.call('settings.set', { key: 'containers.fencedAutoApprove', value: true });

    const session = await t.call('sessions.create', {
      agentId: agent.id,
      cwd: repo,
      // The agent's installed files, mounted beside the project (they are not in the image).
      additionalDirectories: [agentInstallDir('claude-code')],
      container: { source: { kind: 'image', image: testImage('node') }, fence: { network: 'api', memoryMiB: 1024, cpus: 1 } },
    });
    sessions.push(session.id);
    const fence = (await t.call('containers.fence', { sessionId: session.id })).fence!;
    expect(fence).toMatchObject({ network: 'api', allowHosts: offered });
    expect(fence.settings.find((s) => s.setting === 'network')).toMatchObject({ enforced: true, how: expect.stringContaining(`only to ${offered[0]}`) });
    const [container] = JSON.parse(podmanRun(['ps', '--filter', `label=switchboard.session=${session.id}`, '--format', 'json'])) as Array<{ Id: string }>;
    expect(podmanRun(['inspect', '--format', '{{.HostConfig.NetworkMode}}', container!.Id]).trim()).toBe('none');

    // A turn answered by the model: its request came through the proxy (the container has no network of its own).
    llm.when('say the word', [{ kind: 'text', text: 'the word is zebra-quartz' }]);
    expect((await promptAndWait(t, session.id, 'say the word', 180_000)).error).toBeNull();
    expect(agentText(t.rec, session.id)).toContain('the word is zebra-quartz');
    expect(llm.turnRequests().length).toBeGreaterThan(0);

    // The agent's shell, inside: through the proxy another server of this machine is refused; directly, nothing answers.
    const tunnel = `const u = new URL(process.env.HTTPS_PROXY); const s = require('net').connect(+u.port, u.hostname, () => s.write('CONNECT ${hostIp}:${otherPort} HTTP/1.1\\r\\n\\r\\n')); let b = ''; s.on('data', (d) => (b += d)); s.on('close', () => console.log('VIA PROXY:', b.split('\\r\\n')[0]));`;
    const direct = `require('net').connect(${otherPort}, '${hostIp}').on('data', (d) => console.log('DIRECT:', String(d).trim())).on('error', (e) => console.log('DIRECT:', e.code));`;
    llm.when('probe the network', [{ kind: 'shell', command: `node -e "${tunnel.replaceAll('"', '\\"')}"; node -e "${direct.replaceAll('"', '\\"')}"` }]);
    expect((await promptAndWait(t, session.id, 'probe the network', 180_000)).error).toBeNull();
    const said = agentText(t.rec, session.id);
    expect(said).toContain('VIA PROXY: HTTP/1.1 403 Forbidden');
    expect(said).toMatch(/DIRECT: (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|EACCES)/);
    expect(said).not.toContain('not the API');
  });
});
