/**
 * A registry binary agent installed on this machine, in a container session (real Podman): the install here
 * is copied into the container and runs there, instead of failing for want of an SSH helper; a build for
 * another machine than the container's is refused in a sentence, before anything is copied or started.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, type InstallManifest } from '../../../src/main/core/registry/install-manager';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { scenarioAgentPath } from '../../fixtures/scenario-agent/launch';
import { podmanEnv, podmanRun, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';
import { agentText, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

const skip = podmanSkipReason();

describe.skipIf(skip !== null)('a registry binary agent in a container (real Podman)', { timeout: 240_000 }, () => {
  let root: string;
  let t: TestCore;
  const sessions: string[] = [];

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cbin-')));
    t = await makeCore({ dataDir: join(root, 'data'), containers: { engineEnv: podmanEnv() } });
  }, 60_000);

  afterAll(async () => {
    await t?.dispose();
    if (skip === null) for (const id of sessions) removeTestContainers(id);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** What an install of a binary agent here leaves: its program under the data folder, its manifest and row. */
  const installedHere = (registryId: string, program: Buffer): string => {
    const dir = join(t.dataDir, 'agents', registryId, '1.0.0');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(join(dir, 'bin', 'agent'), program);
    chmodSync(join(dir, 'bin', 'agent'), 0o755);
    const manifest: InstallManifest = { schema: 1, registryId, name: `Agent ${registryId}`, version: '1.0.0', kind: 'binary', installedAt: Date.now(), launch: { type: 'exec', path: 'bin/agent' }, args: [], env: {}, installed: 'https://example.test/agent.tar.gz', warnings: [] };
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    const id = registryAgentId(registryId);
    t.core.store.db
      .prepare("INSERT INTO agents (id, name, source, command, args_json, env_json, cwd, version, registry_id, created_at, updated_at) VALUES (?, ?, 'registry', ?, '[]', ?, NULL, '1.0.0', ?, 1, 1)")
      .run(id, manifest.name, join(dir, 'bin', 'agent'), JSON.stringify({ PATH: '/usr/local/bin:/usr/bin:/bin' }), registryId);
    return id;
  };

  it('is copied in and runs inside the container', async () => {
    // A program of one file, as a binary agent's archive holds (here the scenario agent with its interpreter line).
    const out = join(root, 'agent.mjs');
    await build({ entryPoints: [scenarioAgentPath], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent', banner: { js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } });
    const agentId = installedHere('toy-binary', readFileSync(out));
    const repo = join(root, 'repo');
    mkdirSync(repo);
    const session = await t.call('sessions.create', { agentId, cwd: repo, container: { source: { kind: 'image', image: testImage('node') }, fence: { network: 'none' } } });
    sessions.push(session.id);
    expect((await promptAndWait(t, session.id, 'whereami', 60_000)).error).toBeNull();
    expect(JSON.parse(agentText(t.rec, session.id)).cwd).toBe(repo);
    const [box] = JSON.parse(podmanRun(['ps', '--filter', `label=switchboard.session=${session.id}`, '--format', 'json'])) as Array<{ Id: string }>;
    expect(podmanRun(['exec', box!.Id, 'ps', '-eo', 'args'])).toContain(join(t.dataDir, 'agents', 'toy-binary', '1.0.0', 'bin', 'agent'));
  });

  it("a build for another machine than the container's is refused in a sentence", async () => {
    // An ELF header whose machine is not the container's (which is this machine's).
    const elf = Buffer.alloc(64);
    elf.write('\x7fELF', 0, 'latin1');
    elf[4] = 2;
    elf[5] = 1;
    elf.writeUInt16LE(arch() === 'arm64' ? 0x3e : 0xb7, 18);
    const agentId = installedHere('toy-foreign', elf);
    const repo = join(root, 'repo-foreign');
    mkdirSync(repo);
    const sessionId = crypto.randomUUID();
    sessions.push(sessionId);
    const error = await t.callError('sessions.create', { agentId, cwd: repo, sessionId, container: { source: { kind: 'image', image: testImage('node') }, fence: { network: 'none' } } });
    const [built, inside] = arch() === 'arm64' ? ['x86_64', 'aarch64'] : ['aarch64', 'x86_64'];
    expect(error.message).toContain(`Agent toy-foreign 1.0.0 is installed here for ${built}, and the container is ${inside}`);
  });
});
