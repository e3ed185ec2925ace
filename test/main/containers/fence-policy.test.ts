import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, summarizeConfig, type RepoConfig } from '../../../src/main/core/containers/devcontainer-config';
import { defaultFence, fenceProblems } from '../../../src/main/core/containers/fence';
import { blockedItems, fencedConfig, reviewConfig } from '../../../src/main/core/containers/fence-policy';
import { allowedTarget } from '../../../src/main/core/containers/proxy-connection';

const folder = '/home/u/project';
const file = `${folder}/.devcontainer/devcontainer.json`;
const repo = (json: Record<string, unknown>): RepoConfig => ({ file, json });

describe('devcontainer.json', () => {
  it('reads JSONC: comments, trailing commas, and "//" inside strings kept', () => {
    const text = '{\n  // the image\n  "image": "node:20", /* block\n comment */\n  "postCreateCommand": "echo //not a comment",\n  "features": { "a": {}, },\n}\n';
    expect(parseConfig(file, text)).toEqual({ image: 'node:20', postCreateCommand: 'echo //not a comment', features: { a: {} } });
  });

  it('a syntax error names the file, the line and the column', () => {
    const text = '{\n  "image": "x"\n  "runArgs": []\n}';
    const error = (() => {
      try {
        parseConfig(file, text);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`${file}: syntax error at line 3, column 3: Expected ',' or '}' after property value`);
    expect([(error as ConfigError).line, (error as ConfigError).column]).toEqual([3, 3]);
    expect(() => parseConfig(file, '{ /* never ends')).toThrow(/line 1, column 3: a comment that never ends/);
    expect(() => parseConfig(file, '["not", "an object"]')).toThrow(/is not a JSON object/);
  });

  it('summarises what it will run: the image or Dockerfile, the features and every lifecycle command', () => {
    const s = summarizeConfig(
      repo({
        build: { dockerfile: 'Dockerfile', context: '..' },
        features: { 'ghcr.io/devcontainers/features/node:1': {} },
        initializeCommand: 'touch /tmp/x',
        postCreateCommand: { install: ['npm', 'ci'], hello: 'echo hi' },
      }),
    );
    expect(s.source).toEqual({ kind: 'dockerfile', dockerfile: `${folder}/.devcontainer/Dockerfile`, context: folder });
    expect(s.features).toEqual(['ghcr.io/devcontainers/features/node:1']);
    expect(s.commands).toEqual([
      { name: 'initializeCommand', command: 'touch /tmp/x' },
      { name: 'postCreateCommand.install', command: '"npm" "ci"' },
      { name: 'postCreateCommand.hello', command: 'echo hi' },
    ]);
  });
});

describe('a repository cannot lower its own fence', () => {
  const hostile = repo({
    image: 'debian',
    initializeCommand: 'touch ~/pwned',
    runArgs: ['--network=host', '-v', '/:/host'],
    mounts: ['source=/home/u/.ssh,target=/ssh,type=bind'],
    privileged: true,
    capAdd: ['SYS_ADMIN'],
    securityOpt: ['seccomp=unconfined'],
    appPort: [8080],
    build: { options: ['--volume=/etc:/e'] },
    workspaceMount: 'source=/home/u,target=/workspace,type=bind',
    workspaceFolder: '/workspace',
    postCreateCommand: 'npm ci',
  });

  it('lists each fence-lowering setting by name; the engine socket, compose and our own mounts are refused', () => {
    const items = reviewConfig(hostile, folder);
    expect(items.map((i) => `${i.key}:${i.verdict}`).sort()).toEqual(
      ['appPort:ask', 'build.options:ask', 'capAdd:ask', 'initializeCommand:ask', 'mounts:ask', 'privileged:ask', 'runArgs:ask', 'securityOpt:ask', 'workspaceFolder:refused', 'workspaceMount:refused'].sort(),
    );
    const socket = reviewConfig(repo({ mounts: [{ source: '/var/run/docker.sock', target: '/var/run/docker.sock', type: 'bind' }], dockerComposeFile: 'c.yml' }), folder);
    expect(socket.map((i) => `${i.key}:${i.verdict}`).sort()).toEqual(['dockerComposeFile:refused', 'mounts:refused']);
    const outside = reviewConfig(repo({ build: { dockerfile: '../../Dockerfile', context: '../..' } }), folder);
    expect(outside.map((i) => `${i.key}:${i.verdict}`).sort()).toEqual(['build.context:refused', 'build.dockerfile:refused']);
  });

  it('nothing of it reaches the engine until allowed, and an allowance is for that very value', () => {
    const fence = defaultFence([folder]);
    const config = fencedConfig(hostile, fence, new Set());
    expect(config).toEqual({
      image: 'debian',
      build: {},
      postCreateCommand: 'npm ci',
      workspaceMount: `type=bind,source=${folder},target=${folder}`,
      workspaceFolder: folder,
      mounts: [],
      runArgs: ['--memory=2147483648', '--memory-swap=2147483648', '--cpus=2', '--pids-limit=2048', '--network=none'],
    });
    const items = reviewConfig(hostile, folder);
    const mounts = items.find((i) => i.key === 'mounts')!;
    expect(fencedConfig(hostile, fence, new Set([mounts.id])).mounts).toEqual(['source=/home/u/.ssh,target=/ssh,type=bind']);
    const changed = reviewConfig(repo({ ...hostile.json, mounts: ['source=/home/u,target=/h,type=bind'] }), folder).find((i) => i.key === 'mounts')!;
    expect(changed.id).not.toBe(mounts.id);
    expect(blockedItems([changed], new Set([mounts.id]))).toEqual([changed]);
  });

  it('relative Dockerfile paths stay the repository\'s (the configuration given to the engine lives elsewhere)', () => {
    const config = fencedConfig(repo({ build: { dockerfile: 'Dockerfile' } }), defaultFence([folder]), new Set());
    expect(config.build).toEqual({ dockerfile: `${folder}/.devcontainer/Dockerfile`, context: `${folder}/.devcontainer` });
  });

  it('the fence mounts each additional folder at its own path, and refuses what it cannot be', () => {
    const config = fencedConfig(null, defaultFence([folder, '/data/other'], 'full'), new Set(), 'img');
    expect(config.mounts).toEqual(['type=bind,source=/data/other,target=/data/other']);
    expect(config.runArgs).not.toContain('--network=none');
    expect(fenceProblems(defaultFence(['/'], 'api'))).toEqual([
      'cannot mount "/": a folder is an absolute, normalised path other than /',
      'the network mode "only the agent\'s API" needs the hosts it allows',
    ]);
    expect(fenceProblems(defaultFence(['relative/x']))).toHaveLength(1);
    expect(fenceProblems(defaultFence(['/a/../etc']))).toHaveLength(1);
    // A folder name cannot add mount fields (a second source=) to the engine's mount.
    expect(fenceProblems(defaultFence(['/home/u/p,source=/,target=/home/u/p']))).toEqual([
      'cannot mount "/home/u/p,source=/,target=/home/u/p": a folder mounted into a container cannot have a comma, a quote or a control character in its path',
    ]);
    expect(fenceProblems(defaultFence(['/home/u/a"b']))).toHaveLength(1);
    expect(fenceProblems(defaultFence(['/home/u/a\nb']))).toHaveLength(1);
    expect(fenceProblems(defaultFence(['/home/u/ünïcode and spaces']))).toEqual([]);
  });
});

describe('the allow-list of the "only the API" network', () => {
  it('allows the listed names on port 443 (or the port named), subdomains only through "*.", nothing else', () => {
    const allow = ['api.anthropic.com', '*.openai.com', 'localhost:8080'];
    expect(allowedTarget(allow, 'api.anthropic.com', 443)).toBe(true);
    expect(allowedTarget(allow, 'API.Anthropic.com.', 443)).toBe(true);
    expect(allowedTarget(allow, 'api.anthropic.com', 80)).toBe(false);
    expect(allowedTarget(allow, 'evil.api.anthropic.com', 443)).toBe(false);
    expect(allowedTarget(allow, 'api.anthropic.com.evil.net', 443)).toBe(false);
    expect(allowedTarget(allow, 'chat.openai.com', 443)).toBe(true);
    expect(allowedTarget(allow, 'openai.com', 443)).toBe(false);
    expect(allowedTarget(allow, 'evilopenai.com', 443)).toBe(false);
    expect(allowedTarget(allow, 'localhost', 8080)).toBe(true);
    expect(allowedTarget(allow, 'localhost', 443)).toBe(false);
    expect(allowedTarget(allow, '127.0.0.1', 8080)).toBe(false);
  });
});
