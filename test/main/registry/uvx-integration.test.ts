import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateTool } from '../../../src/main/core/registry/runtime-check';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { acpInitialize } from './helpers/acp';
import { createHarness, processEnv, registryDoc, type Harness } from './helpers/setup';

/**
 * One real ACP agent from the Python package index, installed by the real uv through a registry entry with a
 * `uvx` distribution pinned to a real version (Mistral Vibe 3.0.3: its `vibe-acp` program speaks ACP over
 * stdio), then asked `initialize` — as npm-integration.test.ts does for npm. uv's downloads are cached in
 * ~/.cache/switchboard/registry-uv-cache (SWITCHBOARD_REGISTRY_UV_CACHE).
 *
 * Needs uv on the PATH (.ci/run installs it with `pip install uv`) and the package index; skipped, saying
 * which is missing, without them, and with SWITCHBOARD_SKIP_NETWORK_TESTS=1.
 */
const PACKAGE = 'mistral-vibe';
const VERSION = '3.0.3';
const uvCache = process.env.SWITCHBOARD_REGISTRY_UV_CACHE || join(homedir(), '.cache', 'switchboard', 'registry-uv-cache');

function whyNot(): string | null {
  if (process.env.SWITCHBOARD_SKIP_NETWORK_TESTS === '1') return 'SWITCHBOARD_SKIP_NETWORK_TESTS=1';
  const uv = locateTool('uv', { env: processEnv(), home: homedir() });
  if (!uv) return 'uv is not installed (pip install uv)';
  // Can uv reach the index? (`uv pip compile` of one pinned requirement resolves without installing.)
  const probe = spawnSync(uv.path, ['pip', 'compile', '--no-header', '--quiet', '-'], {
    input: `${PACKAGE}==${VERSION}\n`,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...processEnv(), UV_CACHE_DIR: uvCache },
  });
  if (probe.status !== 0) return `uv cannot resolve ${PACKAGE}==${VERSION}: ${(probe.stderr || probe.error?.message || '').trim().split('\n').slice(-3).join(' / ')}`;
  return null;
}

const skipReason = whyNot();
if (skipReason) console.warn(`uvx integration test skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('a real ACP agent from the Python package index, installed with uv', { timeout: 600_000 }, () => {
  let h: Harness;
  let root: string;

  beforeAll(async () => {
    mkdirSync(uvCache, { recursive: true });
    root = mkdtempSync(join(tmpdir(), 'sb-registry-uvx-'));
    const file = join(root, 'registry.json');
    writeFileSync(
      file,
      registryDoc([
        {
          id: 'mistral-vibe',
          name: 'Mistral Vibe',
          version: VERSION,
          description: 'A Python ACP agent',
          distribution: { uvx: { package: `${PACKAGE}==${VERSION}` } },
        },
      ]),
    );
    mkdirSync(join(root, 'home'));
    h = await createHarness({ registryUrl: pathToFileURL(file).toString() }, join(root, 'data'));
  });

  afterAll(async () => {
    await h?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(`installs ${PACKAGE}==${VERSION} and the installed agent answers ACP initialize over stdio`, async () => {
    const res = await h.call('registry.install', { registryId: 'mistral-vibe' });
    expect(res.status).toBe('installed');
    const row = h.agents().get(registryAgentId('mistral-vibe'))!;
    expect(row).toMatchObject({ source: 'registry', version: VERSION });
    expect(row.command).toBe(join(h.dataDir, 'agents', 'mistral-vibe', VERSION, 'venv', 'bin', 'vibe-acp'));
    const home = join(root, 'home');
    const env = { ...processEnv(), ...row.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') };
    const { result } = await acpInitialize(row.command, row.args, env, { cwd: home, timeoutMs: 120_000 });
    expect(result).toMatchObject({ protocolVersion: 1 });
  });
});
