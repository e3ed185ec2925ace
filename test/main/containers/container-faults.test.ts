/**
 * What goes wrong before a container runs, with a real Podman: no engine, an engine that is not running, a
 * devcontainer.json with a syntax error, an image build that fails, and a hostile one (nothing of it runs or is mounted until allowed).
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/main/core/containers/devcontainer-config';
import { FenceRefusal, SessionContainers } from '../../../src/main/core/containers/container-lifecycle';
import { detectEngine, EngineError, probeEngine } from '../../../src/main/core/containers/engine';
import { defaultFence } from '../../../src/main/core/containers/fence';
import { reviewConfig } from '../../../src/main/core/containers/fence-policy';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { podmanEnv, podmanRun, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';

const skip = podmanSkipReason();
const PREFIX = `sbf-${process.pid}-`;
const cli = { node: [process.execPath], script: createRequire(import.meta.url).resolve('@devcontainers/cli/devcontainer.js') };

describe.skipIf(skip !== null)('container faults (real Podman)', { timeout: 120_000 }, () => {
  const local = new LocalHost();
  let dir: string;
  let containers: SessionContainers;
  let image: string;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-container-faults-')));
    mkdirSync(join(dir, 'scratch'));
    containers = new SessionContainers(local, await detectEngine(local, { env: podmanEnv() }), cli, join(dir, 'scratch'));
    image = testImage('base');
  }, 120_000);

  afterAll(() => {
    if (skip === null) removeTestContainers(PREFIX);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds Podman and names it', async () => {
    const engine = await detectEngine(local, { env: podmanEnv(), paths: { docker: join(dir, 'no-docker') } });
    expect(engine).toMatchObject({ kind: 'podman', path: expect.stringMatching(/^\/.*podman$/), version: expect.stringMatching(/^\d+\.\d+/) });
  });

  it('a missing engine is one sentence saying what to install', async () => {
    const missing = detectEngine(local, { env: podmanEnv(), paths: { podman: join(dir, 'bin', 'podman'), docker: join(dir, 'bin', 'docker') } });
    await expect(missing).rejects.toThrow(new EngineError('missing', 'podman', 'No container engine was found on this machine: install Podman or Docker.'));
    await expect(probeEngine(local, 'podman', join(dir, 'bin', 'podman'), podmanEnv())).rejects.toThrow(/^Podman was not found on this machine \(.*\): install Podman/);
  });

  it('an engine that is not running is one sentence saying what to start', async () => {
    const env = { ...podmanEnv(), CONTAINER_HOST: `unix://${join(dir, 'podman.sock')}` };
    const error = await probeEngine(local, 'podman', 'podman', env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).kind).toBe('stopped');
    expect((error as EngineError).message).toMatch(/^Podman is installed on this machine but not running: start Podman \(/);
  });

  it('two starts of one session at once make one container', async () => {
    const work = join(dir, 'twice');
    mkdirSync(work);
    const spec = { sessionId: `${PREFIX}twice`, fence: defaultFence([work]), source: { kind: 'image' as const, image } };
    const [a, b] = await Promise.all([containers.up(spec), containers.up(spec)]);
    expect(a.containerId).toBe(b.containerId);
    expect((await containers.list()).filter((c) => c.sessionId === spec.sessionId)).toHaveLength(1);
  });

  it('a devcontainer.json with a syntax error: a clear error with its line and column, no container', async () => {
    const repo = join(dir, 'broken');
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, '.devcontainer.json'), `{\n  "image": "${image}",\n  "postCreateCommand": "echo hi" "oops"\n}\n`);
    const up = containers.up({ sessionId: `${PREFIX}broken`, fence: defaultFence([repo]), source: { kind: 'repo', allowed: new Set() } });
    await expect(up).rejects.toThrow(ConfigError);
    await expect(up).rejects.toThrow(`${repo}/.devcontainer.json: syntax error at line 3, column 34: Expected ',' or '}' after property value`);
    expect(await containers.find(`${PREFIX}broken`)).toBeNull();
  });

  it("an image build that fails: the error carries the build's own output, and no container is made", async () => {
    const repo = join(dir, 'failing-build');
    mkdirSync(join(repo, '.devcontainer'), { recursive: true });
    writeFileSync(join(repo, '.devcontainer', 'Dockerfile'), `FROM ${image}\nRUN echo "step of the repository fails: no-such-package-xyz" && exit 3\n`);
    writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), JSON.stringify({ build: { dockerfile: 'Dockerfile' } }));
    const sessionId = `${PREFIX}failing-build`;
    const error = await containers.up({ sessionId, fence: defaultFence([repo]), source: { kind: 'repo', allowed: new Set() } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // The CLI says only "Command failed: <the build command>"; the step's own output is what tells the user why.
    expect((error as Error).message).toMatch(/^the container could not be made: Command failed: .* build /);
    expect((error as Error).message).toContain('\nstep of the repository fails: no-such-package-xyz\n');
    expect(await containers.find(sessionId)).toBeNull();
  });

  it('a hostile devcontainer.json: each fence-lowering setting is named, and nothing of it runs or is mounted', async () => {
    const repo = join(dir, 'hostile');
    mkdirSync(join(repo, '.devcontainer'), { recursive: true });
    const marker = join(dir, 'initialize-ran');
    const exposed = join(dir, 'exposed');
    mkdirSync(exposed);
    const config = {
      image,
      initializeCommand: `touch ${marker}`,
      mounts: [`source=${exposed},target=/exposed,type=bind`],
      runArgs: ['--volume', `${exposed}:/exposed2`],
      privileged: true,
      capAdd: ['SYS_ADMIN'],
      securityOpt: ['apparmor=unconfined'],
      postCreateCommand: 'ls /exposed > seen.txt',
    };
    writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), JSON.stringify(config));
    const sessionId = `${PREFIX}hostile`;
    const refusal = await containers.up({ sessionId, fence: defaultFence([repo]), source: { kind: 'repo', allowed: new Set() } }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(FenceRefusal);
    expect((refusal as FenceRefusal).items.map((i) => i.key).sort()).toEqual(['capAdd', 'initializeCommand', 'mounts', 'privileged', 'runArgs', 'securityOpt']);
    expect((refusal as Error).message).toContain('initializeCommand (runs on this machine, outside the container, with your rights; needs your allowance)');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(repo, 'seen.txt'))).toBe(false);
    expect(await containers.find(sessionId)).toBeNull();

    // Allowing only some: the rest still stops it.
    const items = reviewConfig({ file: join(repo, '.devcontainer', 'devcontainer.json'), json: config }, repo);
    const some = new Set(items.filter((i) => i.key === 'capAdd').map((i) => i.id));
    await expect(containers.up({ sessionId, fence: defaultFence([repo]), source: { kind: 'repo', allowed: some } })).rejects.toThrow(FenceRefusal);
    expect(existsSync(marker)).toBe(false);

    // The same repository without them: it runs, with only its folder mounted.
    const tame = { image, postCreateCommand: 'ls / > seen.txt' };
    writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), JSON.stringify(tame));
    const up = await containers.up({ sessionId, fence: defaultFence([repo]), source: { kind: 'repo', allowed: new Set() } });
    const mounts = JSON.parse(podmanRun(['inspect', '--format', '{{json .Mounts}}', up.containerId])) as Array<{ Source: string; Destination: string }>;
    expect(mounts.map((m) => [m.Source, m.Destination])).toEqual([[repo, repo]]);
    const privileged = podmanRun(['inspect', '--format', '{{.HostConfig.Privileged}} {{.HostConfig.NetworkMode}}', up.containerId]).trim();
    expect(privileged).toBe('false none');
  });

  it('an image whose own metadata asks for a host mount and privileges: the engine guard refuses it, nothing is made', async () => {
    const exposed = join(dir, 'exposed-by-image');
    mkdirSync(exposed);
    writeFileSync(join(exposed, 'secret'), 'host secret');
    const metadata = JSON.stringify([{ mounts: [`source=${exposed},target=/exposed,type=bind`], privileged: true, capAdd: ['SYS_ADMIN'], postCreateCommand: 'cp /exposed/secret stolen.txt' }]);
    const context = join(dir, 'evil-image');
    mkdirSync(context);
    writeFileSync(join(context, 'Containerfile'), `FROM ${image}\nLABEL devcontainer.metadata=${JSON.stringify(metadata)}\n`);
    const evil = `localhost/switchboard-test:evil-${process.pid}`;
    podmanRun(['build', '-q', '-t', evil, '-f', join(context, 'Containerfile'), context]);
    try {
      const work = join(dir, 'evil-work');
      mkdirSync(work);
      const sessionId = `${PREFIX}evil`;
      const up = containers.up({ sessionId, fence: defaultFence([work]), source: { kind: 'image', image: evil } });
      await expect(up).rejects.toThrow(/Switchboard refused to run the engine: the mount "source=.*exposed-by-image.*" would lower the session's fence/);
      expect(existsSync(join(work, 'stolen.txt'))).toBe(false);
      expect(await containers.find(sessionId)).toBeNull();
    } finally {
      podmanRun(['rmi', '-f', evil]);
    }
  });
});
