import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { explainNpmFailure, npmInstallArgs, parseNpmSpec, pinnedNpmPackage } from '../../../src/main/core/registry/installers/npx';
import { pickEntryPoint, pinnedPythonRequirement, uvInstallCommands } from '../../../src/main/core/registry/installers/uvx';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { checkTool, locateTool } from '../../../src/main/core/registry/runtime-check';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { TestServer } from './helpers/server';
import { createHarness, processEnv, registryDoc, type Harness } from './helpers/setup';

/** uv is not installed on the machine these tests were written on; where it is, the "missing" checks do not apply. */
const systemHasUv = locateTool('uv', { env: processEnv(), home: '/nonexistent-home' }) !== null;

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'sb-runtime-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('runtime checks', () => {
  it('finds node and npm on the PATH and names uv as missing with how to get it', async () => {
    const h = await createHarness({ home: tmp });
    try {
      const check = await h.call('registry.runtimeCheck', {});
      const byName = Object.fromEntries(check.tools.map((t) => [t.name, t]));
      expect(byName.node).toMatchObject({ found: true, via: 'path', version: process.versions.node });
      expect(byName.npm).toMatchObject({ found: true, via: 'path', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      if (systemHasUv) return;
      expect(byName.uv).toMatchObject({ found: false, path: null, fix: expect.stringContaining('https://astral.sh/uv/install.sh') });
      expect(check.ok).toBe(false);
      expect(check.problems).toEqual([expect.stringMatching(/^uv is needed for Python agents but was not found.*Install uv/)]);
    } finally {
      await h.close();
    }
  });

  it('probes nvm (newest first), asdf and ~/.local/bin when the login shell PATH lacks them', async () => {
    const nvmNew = join(tmp, '.nvm/versions/node/v20.11.0/bin');
    const nvmOld = join(tmp, '.nvm/versions/node/v18.0.0/bin');
    for (const d of [nvmNew, nvmOld]) {
      mkdirSync(d, { recursive: true });
      symlinkSync(process.execPath, join(d, 'node'));
    }
    const node = await checkTool('node', { host: new LocalHost(), env: { PATH: '/nonexistent' }, home: tmp });
    expect(node).toMatchObject({ found: true, via: 'probe', path: join(nvmNew, 'node'), version: process.versions.node });

    const uvDir = join(tmp, '.local/bin');
    mkdirSync(uvDir, { recursive: true });
    writeFileSync(join(uvDir, 'uv'), '#!/bin/sh\necho "uv 0.9.1 (test)"\n');
    expect(locateTool('uv', { env: { PATH: '' }, home: tmp })).toBeNull(); // not executable yet
    chmodSync(join(uvDir, 'uv'), 0o755);
    expect(await checkTool('uv', { host: new LocalHost(), env: { PATH: '/nonexistent' }, home: tmp })).toMatchObject({ found: true, via: 'probe', version: '0.9.1' });

    const asdf = join(tmp, '.asdf/shims');
    mkdirSync(asdf, { recursive: true });
    symlinkSync(process.execPath, join(asdf, 'node'));
    rmSync(join(tmp, '.nvm'), { recursive: true });
    expect(locateTool('node', { env: { PATH: '' }, home: tmp })).toEqual({ path: join(asdf, 'node'), via: 'probe' });
    // The PATH wins over probing.
    expect(locateTool('node', { env: { PATH: dirname(process.execPath) }, home: tmp })).toEqual({ path: process.execPath, via: 'path' });
  });
});

describe('uv (uvx) agents', () => {
  it('builds pinned uv commands into a relocatable environment inside the install folder', () => {
    expect(pinnedPythonRequirement('pyagent@latest', '2.1.0')).toEqual({ name: 'pyagent', requirement: 'pyagent==2.1.0' });
    expect(pinnedPythonRequirement('pyagent', '2.1.0')).toEqual({ name: 'pyagent', requirement: 'pyagent==2.1.0' });
    expect(pinnedPythonRequirement('mistral-vibe@2.0.2', '9.9.9')).toEqual({ name: 'mistral-vibe', requirement: 'mistral-vibe==2.0.2' });
    expect(pinnedPythonRequirement('tool[acp]==1.2.3', '1.2.3')).toEqual({ name: 'tool', requirement: 'tool[acp]==1.2.3' });
    expect(() => pinnedPythonRequirement('--index-url=http://evil', '1.0.0')).toThrow(/not a Python package name/);
    expect(uvInstallCommands('/home/u/.local/bin/uv', '/data/agents/.staging/x/out', 'pyagent==2.1.0', 'linux')).toEqual([
      ['/home/u/.local/bin/uv', 'venv', '--relocatable', '--no-project', '/data/agents/.staging/x/out/venv'],
      ['/home/u/.local/bin/uv', 'pip', 'install', '--python', '/data/agents/.staging/x/out/venv/bin/python', 'pyagent==2.1.0'],
    ]);
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    for (const f of ['python', 'python3', 'activate', 'pip', 'py-agent']) writeFileSync(join(bin, f), '');
    expect(pickEntryPoint(bin, 'py_agent', 'linux')).toBe('py-agent');
    writeFileSync(join(bin, 'other-tool'), '');
    expect(() => pickEntryPoint(bin, 'something', 'linux')).toThrow(/several programs \(other-tool, py-agent\)/);
    // A CLI with an ACP server beside it (mistral-vibe installs vibe and vibe-acp): the ACP one.
    const vibe = join(tmp, 'vibe-bin');
    mkdirSync(vibe);
    for (const f of ['python', 'vibe', 'vibe-acp']) writeFileSync(join(vibe, f), '');
    expect(pickEntryPoint(vibe, 'mistral-vibe', 'linux')).toBe('vibe-acp');
  });

  it.skipIf(systemHasUv)('without uv: a clear message naming the fix, nothing installed', async () => {
    const server = await new TestServer().start();
    server.serve('/registry.json', registryDoc([{ id: 'py-agent', name: 'Py Agent', version: '2.1.0', description: 'x', distribution: { uvx: { package: 'pyagent@latest', args: ['--acp'] } } }]));
    // A login-shell PATH without uv and a home without ~/.local/bin/uv.
    const h = await createHarness({ registryUrl: server.url('/registry.json'), home: tmp, env: async () => ({ ...processEnv(), PATH: dirname(process.execPath) }) });
    try {
      const before = await h.call('registry.runtimeCheck', { registryId: 'py-agent' });
      expect(before.ok).toBe(false);
      expect(before.problems[0]).toMatch(/uv is needed to install Py Agent/);
      const err = await h.fail('registry.install', { registryId: 'py-agent' });
      expect(err.code).toBe('unavailable');
      expect(err.message).toMatch(/uv is needed to install Py Agent \(a Python agent\) but was not found/);
      expect(err.message).toContain('curl -LsSf https://astral.sh/uv/install.sh | sh');
      expect(h.agentFiles().filter((p) => p !== '.staging')).toEqual([]);
      expect(h.agents().get(registryAgentId('py-agent'))).toBeUndefined();
    } finally {
      await h.close();
      await server.close();
    }
  });
});

describe('npm command construction', () => {
  it('pins exactly, installs into the prefix with scripts allowed, and explains failures', () => {
    expect(parseNpmSpec('@zed-industries/claude-code-acp@0.16.0')).toEqual({ name: '@zed-industries/claude-code-acp', spec: '0.16.0' });
    expect(pinnedNpmPackage('opencode-ai', '1.18.33')).toEqual({ name: 'opencode-ai', pinned: 'opencode-ai@1.18.33' });
    expect(pinnedNpmPackage('@scope/x@latest', '1.0.0').pinned).toBe('@scope/x@latest');
    expect(() => parseNpmSpec('--registry=http://evil')).toThrow(/not an npm package name/);
    expect(npmInstallArgs('/p', 'a@1.0.0')).toEqual(['install', '--prefix', '/p', '--no-save', '--ignore-scripts=false', '--no-fund', '--no-audit', '--no-update-notifier', 'a@1.0.0']);
    const etarget = explainNpmFailure(
      'npm error code ETARGET\nnpm error notarget No matching version found for @google/gemini-cli@0.0.999.\nnpm error A complete log of this run can be found in: /x.log\n',
      '@google/gemini-cli',
      '@google/gemini-cli@0.0.999',
      1,
    );
    expect(etarget.message).toBe('@google/gemini-cli@0.0.999 is not available on the npm registry: no such version. `npm view @google/gemini-cli versions` lists the versions it has.');
    expect(explainNpmFailure('npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope', 'nope', 'nope@1.0.0', 1).message).toMatch(/the package nope was not found/);
    expect(explainNpmFailure('npm error code ENOTFOUND\nnpm error network request failed', 'a', 'a@1.0.0', 1).code).toBe('unavailable');
  });
});
