import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { acpInitialize } from './helpers/acp';
import { makeNpmTarball } from './helpers/archives';
import { TestServer } from './helpers/server';
import { createHarness, processEnv, registryDoc, type Harness } from './helpers/setup';

/**
 * npm agents, installed by the real npm from an npm registry the test serves on 127.0.0.1
 * (a packument and a tarball built here), so no internet is needed.
 */
const PKG = '@switchboard-test/fake-acp-agent';

const AGENT_JS = `#!/usr/bin/env node
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {
      protocolVersion: 1, agentCapabilities: {}, authMethods: [],
      agentInfo: { name: 'fake-acp-agent', version: require('../package.json').version },
      _meta: { argv: process.argv.slice(2), greeting: process.env.FAKE_GREETING ?? null },
    } }) + '\\n');
  }
});
`;

let server: TestServer;
let h: Harness;
let npmCache: string;

function publishPackage(version: string): void {
  const { tgz, integrity, shasum } = makeNpmTarball({
    'package.json': {
      content: JSON.stringify({ name: PKG, version, bin: { 'fake-acp-agent': 'bin/agent.js', other: 'bin/agent.js' }, engines: { node: '>=99' } }),
    },
    'bin/agent.js': { content: AGENT_JS, mode: 0o755 },
  });
  const tarball = `/tarballs/fake-acp-agent-${version}.tgz`;
  server.serve(tarball, tgz);
  server.serve(
    `/${PKG}`,
    JSON.stringify({
      name: PKG,
      'dist-tags': { latest: version },
      versions: {
        [version]: {
          name: PKG,
          version,
          bin: { 'fake-acp-agent': 'bin/agent.js', other: 'bin/agent.js' },
          engines: { node: '>=99' },
          dist: { tarball: server.url(tarball), integrity, shasum },
        },
      },
    }),
    { type: 'application/json' },
  );
}

function publishRegistry(pkgSpec: string, version = '1.0.0'): void {
  server.serve(
    '/registry.json',
    registryDoc([
      {
        id: 'fake-agent',
        name: 'Fake Agent',
        version,
        description: 'npm test agent',
        distribution: { npx: { package: pkgSpec, args: ['--acp'], env: { FAKE_GREETING: 'hello' } } },
      },
    ]),
  );
}

beforeEach(async () => {
  server = await new TestServer().start();
  // A fresh npm cache per test: the tarballs must really be fetched from this test's server.
  npmCache = mkdtempSync(join(tmpdir(), 'sb-npm-cache-'));
  h = await createHarness({
    registryUrl: server.url('/registry.json'),
    npmEnv: { npm_config_registry: server.url('/'), npm_config_cache: npmCache },
  });
});

afterEach(async () => {
  await h.close();
  await server.close();
  rmSync(npmCache, { recursive: true, force: true });
});

/** Processes running in (or naming) the test's data dir: npm runs in the staging folder (it rewrites its command line). */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        /* not ours to read */
      }
      if (cmd.includes(dir) || cwd.startsWith(dir)) found.push(`${pid}: ${cmd}`);
    } catch {
      /* exited */
    }
  }
  return found;
}

describe('npm (npx) installs', { timeout: 120_000 }, () => {
  it('installs the pinned package into the agents folder and the row starts it with node <bin>', async () => {
    publishPackage('1.0.0');
    publishRegistry(`${PKG}@1.0.0`);
    const res = await h.call('registry.install', { registryId: 'fake-agent' });
    expect(res.status).toBe('installed');
    if (res.status !== 'installed') return;
    expect(res.agent.kind).toBe('npx');
    expect(res.agent.warnings.join(' ')).toMatch(/asks for Node >=99/);

    const row = h.agents().get(registryAgentId('fake-agent'))!;
    const dir = join(h.dataDir, 'agents', 'fake-agent', '1.0.0');
    expect(row.command).toMatch(/\/node$/);
    expect(row.args).toEqual([join(dir, 'node_modules', '@switchboard-test', 'fake-acp-agent', 'bin', 'agent.js'), '--acp']);
    expect(row.env).toEqual({ FAKE_GREETING: 'hello' });
    // Not global, not the npx cache: only our folder.
    expect(readdirSync(join(dir, 'node_modules'))).toContain('@switchboard-test');

    const { result } = await acpInitialize(row.command, row.args, { ...processEnv(), ...row.env }, { cwd: h.dataDir, timeoutMs: 20_000 });
    expect(result).toMatchObject({ protocolVersion: 1, agentInfo: { name: 'fake-acp-agent', version: '1.0.0' }, _meta: { argv: ['--acp'], greeting: 'hello' } });
    expect(h.progress('fake-agent').map((p) => p.step)).toEqual(expect.arrayContaining(['preparing', 'installing', 'verifying', 'finishing', 'done']));
    // The steps are Switchboard's words; what npm printed ("added 1 package…", its warnings) is kept apart, behind Details.
    const installing = h.progress('fake-agent').filter((p) => p.step === 'installing');
    expect(new Set(installing.map((p) => p.message))).toEqual(new Set([`Installing ${PKG}@1.0.0 and what it needs with npm`]));
    // (here npm prints at least the warning about this machine's "nodedir" config; elsewhere it may print nothing)
    for (const line of installing.at(-1)?.output ?? []) expect(line).not.toBe(installing.at(-1)?.message);

    // The node it was installed with disappears (an nvm upgrade…): the check points the row at the node found now.
    h.agents().upsert({ ...row, command: '/nonexistent/bin/node' });
    const check = await h.call('registry.runtimeCheck', { registryId: 'fake-agent' });
    expect(check.ok).toBe(true);
    expect(check.warnings.join(' ')).toMatch(/\/nonexistent\/bin\/node is gone; Fake Agent now runs with \//);
    expect(h.agents().get(registryAgentId('fake-agent'))!.command).toBe(check.tools.find((t) => t.name === 'node')!.path);
  });

  it('ETARGET: a version missing on the npm registry is a clear error naming the package, leaving nothing', async () => {
    publishPackage('1.0.0');
    publishRegistry(`${PKG}@9.9.9`, '9.9.9');
    const err = await h.fail('registry.install', { registryId: 'fake-agent' });
    expect(err.code).toBe('agent_error');
    expect(err.message).toContain(`${PKG}@9.9.9 is not available on the npm registry`);
    expect(err.message).toContain(`npm view ${PKG} versions`);
    expect(h.agentFiles().filter((p) => p !== '.staging')).toEqual([]);
    expect(h.agents().get(registryAgentId('fake-agent'))).toBeUndefined();
  });

  it('pins the entry version when the registry names none', async () => {
    publishPackage('2.0.0');
    publishRegistry(PKG, '2.0.0');
    const res = await h.call('registry.install', { registryId: 'fake-agent' });
    expect(res.status === 'installed' && res.agent.version).toBe('2.0.0');
    expect(server.requests.some((r) => r.path === '/tarballs/fake-acp-agent-2.0.0.tgz')).toBe(true);
  });

  it('cancel during npm install ends npm and leaves nothing', async () => {
    publishPackage('1.0.0');
    publishRegistry(`${PKG}@1.0.0`);
    server.stall('/tarballs/fake-acp-agent-1.0.0.tgz', Buffer.alloc(100_000, 1));
    const pending = h.call('registry.install', { registryId: 'fake-agent' });
    await expect.poll(() => server.requestsFor('/tarballs/fake-acp-agent-1.0.0.tgz'), { timeout: 60_000 }).toBeGreaterThan(0);
    expect(processesUsing(h.dataDir).length).toBeGreaterThan(0);
    expect(await h.call('registry.cancelInstall', { registryId: 'fake-agent' })).toEqual({ cancelled: true });
    expect(await pending).toEqual({ status: 'cancelled' });
    expect(processesUsing(h.dataDir)).toEqual([]);
    expect(h.agentFiles().filter((p) => p !== '.staging')).toEqual([]);
    expect(h.agents().get(registryAgentId('fake-agent'))).toBeUndefined();
  });
});
