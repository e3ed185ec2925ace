/**
 * Sessions in containers with a real Podman: a container made by @devcontainers/cli from a devcontainer.json
 * or an image, processes run inside through the ContainerHost, and the fence holding from inside.
 */
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerHost } from '../../../src/main/core/containers/container-host';
import { SessionContainers } from '../../../src/main/core/containers/container-lifecycle';
import { detectEngine, type Engine } from '../../../src/main/core/containers/engine';
import { defaultFence, type Fence } from '../../../src/main/core/containers/fence';
import { requireNode } from '../../../src/main/core/containers/node-check';
import { runOnHost } from '../../../src/main/core/containers/run';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { podmanEnv, podmanRun, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';

const skip = podmanSkipReason();
const PREFIX = `sbt-${process.pid}-`;
const cli = { node: [process.execPath], script: createRequire(import.meta.url).resolve('@devcontainers/cli/devcontainer.js') };

describe.skipIf(skip !== null)('a session in a container (real Podman)', { timeout: 180_000 }, () => {
  const local = new LocalHost();
  let dir: string;
  let home: string;
  let engine: Engine;
  let containers: SessionContainers;
  let nodeImage: string;
  let baseImage: string;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-containers-')));
    home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_secret'), 'the-users-private-key');
    mkdirSync(join(dir, 'scratch'));
    engine = await detectEngine(local, { env: podmanEnv(), prefer: 'podman' });
    containers = new SessionContainers(local, engine, cli, join(dir, 'scratch'));
    nodeImage = testImage('node');
    baseImage = testImage('base');
  }, 120_000);

  afterAll(async () => {
    await containers?.dispose();
    if (skip === null) removeTestContainers(PREFIX);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const folder = (name: string): string => {
    const f = join(dir, name);
    mkdirSync(f, { recursive: true });
    return f;
  };

  async function start(name: string, fence: Fence, image = nodeImage): Promise<ContainerHost> {
    const up = await containers.up({ sessionId: `${PREFIX}${name}`, fence, source: { kind: 'image', image } });
    return ContainerHost.open({ inner: local, engine, containerId: up.containerId, folder: fence.folders[0]! });
  }

  /** Runs argv in the container: its exit, stdout and stderr. */
  async function inside(host: ContainerHost, argv: string[], env: Record<string, string> = {}) {
    return runOnHost(host, argv, { env: { PATH: '/usr/bin:/bin', ...env }, timeoutMs: 60_000 });
  }

  it('up from the repository\'s devcontainer.json: its commands run inside, the folder mounted at its own path', async () => {
    const repo = folder('repo');
    mkdirSync(join(repo, '.devcontainer'));
    writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), `{\n  // a comment\n  "image": "${nodeImage}",\n  "postCreateCommand": "pwd > made-inside.txt",\n}\n`);
    const up = await containers.up({ sessionId: `${PREFIX}repo`, fence: defaultFence([repo]), source: { kind: 'repo', allowed: new Set() } });
    expect(readFileSync(join(repo, 'made-inside.txt'), 'utf8').trim()).toBe(repo);
    const again = await containers.up({ sessionId: `${PREFIX}repo`, fence: defaultFence([repo]), source: { kind: 'repo', allowed: new Set() } });
    expect(again.containerId).toBe(up.containerId);
    const listed = await containers.find(`${PREFIX}repo`);
    expect(listed).toMatchObject({ id: up.containerId, state: 'running', image: expect.stringContaining('switchboard-test') });
    expect(listed!.sizeBytes).toEqual(expect.any(Number));
  });

  it('a process inside passes JSON lines through stdio unchanged, and a file it writes appears outside at the same path', async () => {
    const work = folder('stdio');
    const host = await start('stdio', defaultFence([work]));
    const proc = host.spawn(['node', '-e', 'process.stdin.pipe(process.stdout)'], { env: { PATH: '/usr/bin:/bin' }, cwd: work });
    const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, params: { text: `ünïcode ${'x'.repeat(i * 37)}` } }));
    const chunks: Buffer[] = [];
    proc.stdout.on('data', (c: Buffer) => chunks.push(c));
    proc.stdin.end(`${lines.join('\n')}\n`);
    const exit = await proc.closed;
    expect(exit).toMatchObject({ code: 0, error: null });
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`${lines.join('\n')}\n`);

    const written = await inside(host, ['sh', '-c', 'echo "from inside" > "$PWD/out.txt" && id -u']);
    expect(written.code).toBe(0);
    expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('from inside\n');
  });

  it('a terminal inside: a pseudo-terminal in the container, in its folder, without the pid line the host uses', async () => {
    const work = folder('pty');
    const host = await start('pty', defaultFence([work]), baseImage);
    const pty = host.openPty(['/bin/sh'], { cwd: work, env: { PATH: '/usr/bin:/bin', TERM: 'dumb', PS1: '$ ' }, cols: 80, rows: 24 });
    let seen = '';
    pty.onData((d) => (seen += d));
    pty.write('echo "in $(pwd): $((6 * 7))"; cat /etc/os-release; [ -t 0 ] && echo tty; exit 3\n');
    const exit = await pty.exited;
    expect(exit.exitCode).toBe(3);
    expect(seen).toContain(`in ${work}: 42`);
    expect(seen).toContain('Switchboard test image');
    expect(seen).toMatch(/\btty\r?\n/);
    expect(seen.split(/\r?\n/).filter((line) => /^\s*\d+\s*$/.test(line))).toEqual([]);
    await pty.dispose();
  });

  it('the fence holds: no file of the home, no write outside the mount, no host loopback with network none', async () => {
    const work = folder('fence');
    const server: Server = createServer((s) => s.end('hello from the host\n'));
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    const port = (server.address() as { port: number }).port;
    const hostIp = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    const probe = (ip: string) => `require('net').connect(${port}, '${ip}').on('data', (d) => { process.stdout.write('REACHED ' + d); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(3); })`;
    try {
      const host = await start('fence', defaultFence([work]));
      const read = await inside(host, ['cat', join(home, '.ssh', 'id_secret')]);
      expect(read.code).not.toBe(0);
      expect(read.stdout).not.toContain('the-users-private-key');
      expect(readdirSync(join(home, '.ssh'))).toEqual(['id_secret']);

      // Writes outside the mount land in the container's own layer (or fail): nothing of this machine changes.
      const outside = join(dir, 'outside.txt');
      const secret = join(home, '.ssh', 'id_secret');
      await inside(host, ['sh', '-c', `echo escaped > ${outside}; mkdir -p ${home}/.ssh; echo overwritten > ${secret}; cat ${outside}`]);
      expect(existsSync(outside)).toBe(false);
      expect(readFileSync(secret, 'utf8')).toBe('the-users-private-key');

      for (const ip of ['127.0.0.1', ...(hostIp ? [hostIp] : [])]) {
        const r = await inside(host, ['node', '-e', probe(ip)]);
        expect({ ip, code: r.code, out: r.stdout }).toMatchObject({ ip, code: 3 });
        expect(r.stdout).not.toContain('REACHED');
      }
      // The same probe does reach the host through a full network: it is the fence that stops it above.
      if (hostIp) {
        const open = await start('fence-full', defaultFence([folder('fence-full')], 'full'));
        expect((await inside(open, ['node', '-e', probe(hostIp)])).stdout).toBe('REACHED hello from the host\n');
      }
    } finally {
      server.close();
    }
  });

  it('network "only the API": a listed host is reached through the proxy, another is refused, a direct connection reaches nothing', async () => {
    const servers = await Promise.all(
      ['api here', 'not listed'].map(async (text) => {
        const server = createServer((s) => s.end(`${text}\n`));
        await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
        return { server, port: (server.address() as { port: number }).port };
      }),
    );
    const [api, other] = servers as [(typeof servers)[0], (typeof servers)[0]];
    try {
      const work = folder('api');
      const fence: Fence = { ...defaultFence([work], 'api'), allowHosts: [`127.0.0.1:${api.port}`] };
      const up = await containers.up({ sessionId: `${PREFIX}api`, fence, source: { kind: 'image', image: nodeImage } });
      expect(up.env.HTTPS_PROXY).toBe('http://127.0.0.1:3128');
      const host = await ContainerHost.open({ inner: local, engine, containerId: up.containerId, folder: work, env: up.env });
      const viaProxy = `const u = new URL(process.env.HTTPS_PROXY); const s = require('net').connect(+u.port, u.hostname, () => s.write('CONNECT ' + process.argv[1] + ' HTTP/1.1\\r\\n\\r\\n')); let b = ''; s.on('data', (d) => (b += d)); s.on('error', (e) => (b += e.code)); s.on('close', () => process.stdout.write(b));`;
      const tunnel = async (target: string) => (await inside(host, ['node', '-e', viaProxy, target])).stdout;
      expect(await tunnel(`127.0.0.1:${api.port}`)).toBe('HTTP/1.1 200 Connection Established\r\n\r\napi here\n');
      expect(await tunnel(`127.0.0.1:${other.port}`)).toMatch(/^HTTP\/1.1 403 Forbidden\r\n/);
      expect(await tunnel('example.com:443')).toMatch(/^HTTP\/1.1 403 Forbidden\r\n/);
      const hostIp = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '10.0.0.1';
      const direct = await inside(host, ['node', '-e', `require('net').connect(${api.port}, '${hostIp}').on('data', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(3); })`]);
      expect(direct.code).toBe(3);
    } finally {
      for (const { server } of servers) server.close();
    }
  });

  it('a memory hog is killed at its limit and its exit says it ran out of memory', async () => {
    const work = folder('oom');
    const host = await start('oom', { ...defaultFence([work]), memoryBytes: 128 * 1024 ** 2 });
    const hog = host.spawn(['node', '-e', 'const a = []; for (;;) a.push(Buffer.alloc(4 << 20, 1));'], { env: { PATH: '/usr/bin:/bin' }, stdin: 'ignore' });
    const exit = await hog.closed;
    expect(exit.code).toBe(137);
    expect(exit.error).toMatch(/out of memory/);
    // The container lives on: the next process runs.
    expect((await inside(host, ['sh', '-c', 'exit 0'])).code).toBe(0);
  });

  it('env values reach the process but never a command line (ps here and inside); kill ends it inside the container', async () => {
    const work = folder('env');
    const host = await start('env', defaultFence([work]));
    const secret = `sk-secret-${process.pid}-${Date.now()}`;
    const proc = host.spawn(['sh', '-c', 'printf "%s\\n" "$API_KEY"; exec sleep 4242'], { env: { PATH: '/usr/bin:/bin', API_KEY: secret } });
    const first = await new Promise<string>((resolve) => proc.stdout.once('data', (c: Buffer) => resolve(c.toString('utf8'))));
    expect(first).toBe(`${secret}\n`);
    const cmdlines = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        return '';
      }
    });
    expect(cmdlines.some((c) => c.includes('sleep 4242'))).toBe(true);
    expect(cmdlines.filter((c) => c.includes(secret))).toEqual([]);
    const ps = await inside(host, ['ps', '-eo', 'args']);
    expect(ps.stdout).toContain('sleep 4242');
    expect(ps.stdout).not.toContain(secret);

    proc.kill('SIGTERM');
    expect((await proc.closed).code).not.toBe(0);
    expect((await inside(host, ['ps', '-eo', 'args'])).stdout).not.toContain('sleep 4242');
  });

  it('a container killed from outside mid-run: the process ends saying so, and up starts it again', async () => {
    const work = folder('killed');
    const fence = defaultFence([work]);
    const host = await start('killed', fence);
    const proc = host.spawn(['sleep', '300'], { env: { PATH: '/usr/bin:/bin' } });
    await proc.started;
    expect((await inside(host, ['sh', '-c', 'exit 0'])).code).toBe(0);
    podmanRun(['kill', host.containerId]);
    const exit = await proc.closed;
    expect(exit.error).toMatch(/no longer running .*stopped or removed outside this session/);
    expect((await containers.find(`${PREFIX}killed`))?.state).toBe('stopped');
    const up = await containers.up({ sessionId: `${PREFIX}killed`, fence, source: { kind: 'image', image: nodeImage } });
    expect(up.containerId).toBe(host.containerId);
    expect((await inside(host, ['sh', '-c', 'exit 0'])).code).toBe(0);
  });

  it('an image without node is named for what it lacks; one with node says its version', async () => {
    const bare = await start('bare', defaultFence([folder('bare')]), baseImage);
    await expect(requireNode(bare, { PATH: '/usr/bin:/bin' })).rejects.toThrow('this image has no node: choose an image with node 20+, or add the node feature');
    const withNode = await start('withnode', defaultFence([folder('withnode')]));
    expect(await requireNode(withNode, { PATH: '/usr/bin:/bin' })).toBe(process.version);
  });

  it('stop and remove act only on containers Switchboard made', async () => {
    const user = podmanRun(['create', '--label', 'mine=1', baseImage, 'sleep', '1']).trim();
    try {
      await expect(containers.remove(user)).rejects.toThrow(/is not a container Switchboard made: it is left alone/);
      await expect(containers.stop(user)).rejects.toThrow(/left alone/);
      expect(podmanRun(['inspect', '--format', '{{.Id}}', user]).trim()).toBe(user);
      const host = await start('removed', defaultFence([folder('removed')]));
      await containers.stop(host.containerId);
      expect((await containers.find(`${PREFIX}removed`))?.state).toBe('stopped');
      await containers.remove(host.containerId);
      expect(await containers.find(`${PREFIX}removed`)).toBeNull();
    } finally {
      podmanRun(['rm', '-f', user]);
    }
  });
});
