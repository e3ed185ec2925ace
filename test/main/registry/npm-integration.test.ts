import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { acpInitialize } from './helpers/acp';
import { createHarness, processEnv, type Harness } from './helpers/setup';

/**
 * One real registry agent from the real npm registry: Gemini CLI 0.61.0 from registry.offline.json,
 * the smallest npm entry there (~100 MB installed; claude-code-acp ~116 MB, qwen ~145 MB, the
 * codex/opencode wrappers pull 150+ MB native binaries, claude-agent-acp ~400 MB). npm's downloads are
 * cached between runs in ~/.cache/switchboard/registry-npm-cache (SWITCHBOARD_REGISTRY_NPM_CACHE).
 * Skipped with SWITCHBOARD_SKIP_NETWORK_TESTS=1.
 */
const skip = process.env.SWITCHBOARD_SKIP_NETWORK_TESTS === '1';
const npmCache = process.env.SWITCHBOARD_REGISTRY_NPM_CACHE || join(homedir(), '.cache', 'switchboard', 'registry-npm-cache');

describe.skipIf(skip)('a real registry agent from npm', { timeout: 300_000 }, () => {
  let h: Harness;
  let home: string;

  beforeAll(async () => {
    mkdirSync(npmCache, { recursive: true });
    const offline = JSON.parse(readFileSync(join(__dirname, '../../fixtures/registry/registry.offline.json'), 'utf8')) as { agents: Array<{ id: string }> };
    const dir = mkdtempSync(join(tmpdir(), 'sb-registry-real-'));
    const file = join(dir, 'registry.json');
    writeFileSync(file, JSON.stringify({ ...offline, agents: offline.agents.filter((a) => a.id === 'gemini') }));
    home = join(dir, 'home');
    mkdirSync(home);
    h = await createHarness({ registryUrl: pathToFileURL(file).toString(), npmEnv: { npm_config_cache: npmCache } }, join(dir, 'data'));
  });

  afterAll(async () => {
    await h?.close();
    rmSync(join(home, '..'), { recursive: true, force: true });
  });

  it('installs @google/gemini-cli@0.61.0 and the installed agent answers ACP initialize over stdio', async () => {
    const res = await h.call('registry.install', { registryId: 'gemini' });
    expect(res.status).toBe('installed');
    const row = h.agents().get(registryAgentId('gemini'))!;
    expect(row).toMatchObject({ source: 'registry', registryId: 'gemini', version: '0.61.0' });
    expect(row.args[0]).toBe(join(h.dataDir, 'agents', 'gemini', '0.61.0', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'));
    expect(row.args.slice(1)).toEqual(['--acp']);

    // As the agents README says: an isolated HOME, no relaunch, a trusted workspace.
    const env = {
      ...processEnv(),
      ...row.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    };
    const { result } = await acpInitialize(row.command, row.args, env, { cwd: home, timeoutMs: 90_000 });
    expect(result).toMatchObject({ protocolVersion: 1, agentInfo: { name: 'gemini-cli', version: '0.61.0' } });
    expect(Array.isArray(result.authMethods) && result.authMethods.length).toBeGreaterThan(0);
  });
});
