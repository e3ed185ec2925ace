/**
 * The engine guard as the dev container CLI meets it: a real shell wrapper and node, in front of a stand-in
 * engine that only prints what it was asked (`/bin/echo`), so each refusal is seen without making containers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeEngineGuard } from '../../../src/main/core/containers/engine-guard';
import { defaultFence } from '../../../src/main/core/containers/fence';
import { guardConfig } from '../../../src/main/core/containers/fence-policy';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

describe('the engine guard', () => {
  let dir: string;
  let guard: string;
  const folder = '/home/u/project';

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-guard-')));
    const repo = { file: `${folder}/.devcontainer.json`, json: { image: 'x', capAdd: ['SYS_PTRACE'], runArgs: ['--device', '/dev/fuse'] } };
    // The user allowed the capability, not the device.
    const { reviewConfig } = await import('../../../src/main/core/containers/fence-policy');
    const allowed = new Set(reviewConfig(repo, folder).filter((i) => i.key === 'capAdd').map((i) => i.id));
    const config = guardConfig(repo, defaultFence([folder, '/data/more']), allowed, '/bin/echo');
    guard = await writeEngineGuard(await new LocalHost().files([dir]), dir, 's1', [process.execPath], config);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...args: string[]) => {
    const r = spawnSync(guard, args, { encoding: 'utf8' });
    return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
  };
  const mount = `type=bind,source=${folder},target=${folder}`;
  const base = ['--sig-proxy=false', '-a', 'STDOUT', '--mount', mount, '-l', 'switchboard.managed=1', '--security-opt', 'label=disable', '--network=none', '--memory=2147483648'];

  it('lets the fenced run through unchanged, and the commands that make nothing', () => {
    expect(run('run', ...base, 'img', '-c', 'echo --privileged')).toEqual({ code: 0, out: ['run', ...base, 'img', '-c', 'echo --privileged'].join(' '), err: '' });
    expect(run('run', ...base, '--mount', 'target=/data/more,source=/data/more,type=bind', '--cap-add', 'SYS_PTRACE', 'img').code).toBe(0);
    expect(run('exec', '-i', '-u', 'root', '-e', 'A=1', 'abc', 'sh').code).toBe(0);
    expect(run('inspect', '--privileged-looking-but-inspect').code).toBe(0);
    expect(run('build', '-f', '/x/Dockerfile', '-t', 'tag', '--build-arg', 'A=1', '/x').code).toBe(0);
  });

  it('refuses each way of lowering the fence, saying which', () => {
    const refusals: Array<[string[], string]> = [
      [['run', ...base, '--privileged', 'img'], '--privileged'],
      [['run', ...base, '--cap-add', 'SYS_ADMIN', 'img'], 'the capability "SYS_ADMIN"'],
      [['run', ...base, '--mount', 'type=bind,source=/,target=/host', 'img'], 'the mount "type=bind,source=/,target=/host"'],
      [['run', ...base, '-v', '/:/host', 'img'], 'the engine option "-v"'],
      [['run', ...base, '--volume=/etc:/e', 'img'], 'the engine option "--volume=/etc:/e"'],
      [['run', ...base, '--network=host', 'img'], 'the network "host"'],
      [['run', '--mount', mount, 'img'], 'a container without the fence\'s network'],
      [['run', ...base, '--pid=host', 'img'], 'the engine option "--pid=host"'],
      [['run', ...base, '--userns=host', 'img'], 'the user namespace "host"'],
      [['run', ...base, '--security-opt', 'seccomp=unconfined', 'img'], 'the security option "seccomp=unconfined"'],
      [['run', ...base, '--env-file', '/home/u/.env', 'img'], 'the engine option "--env-file"'],
      [['run', ...base, '--device', '/dev/fuse', 'img'], 'the engine option "--device"'],
      [['create', ...base, '--volumes-from', 'other', 'img'], 'the engine option "--volumes-from"'],
      [['container', 'run', ...base, '--privileged', 'img'], '--privileged'],
      [['exec', '--privileged', 'abc', 'sh'], '--privileged'],
      [['exec', '-i', '-e', 'A=1', '--privileged', 'abc', 'sh'], '--privileged'],
      [['exec', '--user=root', '--env-file', '/home/u/.env', 'abc', 'sh'], 'the engine option "--env-file"'],
      [['exec', '-it', 'abc', 'sh'], 'the engine option "-it"'],
      [['container', 'exec', '--privileged', 'abc', 'sh'], '--privileged'],
      [['image', 'build', '-v', '/:/host', '.'], 'the engine option "-v"'],
      [['-v', 'run', ...base, '--privileged', 'img'], 'the engine option "-v" before the command'],
      // A global option before the command would hide it from a check that looked for the first word.
      [['--log-level', 'debug', 'run', ...base, '--privileged', 'img'], 'the engine option "--log-level" before the command'],
      [['--root', '/tmp/other-store', 'run', ...base, 'img'], 'the engine option "--root" before the command'],
      [['--url', 'tcp://10.0.0.1:8080', 'exec', 'abc', 'sh'], 'the engine option "--url" before the command'],
      [['build', '-v', '/:/host', '.'], 'the engine option "-v"'],
      [['buildx', 'build', '--network=host', '.'], 'the network "host"'],
    ];
    for (const [args, what] of refusals) {
      expect({ args, ...run(...args) }).toEqual({ args, code: 1, out: '', err: `Switchboard refused to run the engine: ${what} would lower the session's fence (not allowed for this repository)` });
    }
  });
});

describe("the engine guard's cost", () => {
  let dir: string;
  let guard: string;
  let starts: string;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-guard-cost-')));
    starts = join(dir, 'node-starts');
    writeFileSync(starts, '');
    const config = guardConfig(null, defaultFence(['/home/u/project']), new Set(), '/bin/echo');
    // The guard's node, counted: each start appends a line before node runs the check.
    const node = ['/bin/sh', '-c', `echo started >> '${starts}'; exec "$0" "$@"`, process.execPath];
    guard = await writeEngineGuard(await new LocalHost().files([dir]), dir, 's1', node, config);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const nodeStartsFor = (...args: string[]) => {
    const before = readFileSync(starts, 'utf8').split('\n').length;
    const r = spawnSync(guard, args, { encoding: 'utf8' });
    expect({ args, code: r.status, out: r.stdout.trim() }).toEqual({ args, code: 0, out: args.join(' ') });
    return readFileSync(starts, 'utf8').split('\n').length - before;
  };

  it("starts node only for the commands that make or enter a container with more than the plainest flags (not for each of the CLI's calls)", () => {
    // What `devcontainer up` runs besides the container's own `run`: none needs a check.
    for (const args of [['-v'], ['buildx', 'version'], ['version', '--format', '{{.Server.Version}}'], ['ps', '-q', '-a'], ['inspect', '--type', 'image', 'img'], ['image', 'inspect', 'img'], ['events', '--format', 'json'], ['exec', '-i', '-u', 'root', '-e', 'A=1', 'abc', '/bin/sh'], ['exec', '--user=root', '-t', '-w', '/w', 'abc', 'sh', '-c', '--privileged'], ['container', 'ls']]) {
      expect({ args, starts: nodeStartsFor(...args) }).toEqual({ args, starts: 0 });
    }
    expect(nodeStartsFor('run', '--mount', 'type=bind,source=/home/u/project,target=/home/u/project', '--network=none', 'img')).toBe(1);
    expect(nodeStartsFor('exec', '--interactive=true', 'abc', 'sh')).toBe(1);
    expect(nodeStartsFor('buildx', 'build', '.')).toBe(1);
  });
});
