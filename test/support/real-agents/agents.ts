// Where the pinned real agents live (installed by scripts/install-test-agents.mjs) and how to launch each one
// against a fake LLM, offline, with an isolated HOME. Plain Node: no test-framework imports.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pinned from './pinned-agents.json';

export type RealAgentId = 'claude-code' | 'claude-agent' | 'gemini' | 'qwen';

export interface RealAgentSpec {
  id: RealAgentId;
  title: string;
  pkg: string;
  version: string;
  /** Entry script, relative to the install directory. */
  entry: string;
  /** Arguments that put the agent in ACP-over-stdio mode. */
  args: string[];
}

export const REAL_AGENTS: Record<RealAgentId, RealAgentSpec> = Object.fromEntries(
  (pinned.agents as RealAgentSpec[]).map((a) => [a.id, a]),
) as Record<RealAgentId, RealAgentSpec>;

/** Same marker the installer writes last. */
export const INSTALL_MARKER = '.switchboard-install-complete.json';

export function agentCacheRoot(): string {
  const fromEnv = process.env['SWITCHBOARD_AGENT_CACHE'];
  return fromEnv && fromEnv.trim() !== '' ? fromEnv : join(homedir(), '.cache', 'switchboard', 'test-agents');
}

export function agentInstallDir(id: RealAgentId): string {
  const a = REAL_AGENTS[id];
  return join(agentCacheRoot(), `${a.pkg.replace('/', '+')}@${a.version}`);
}

export function agentEntryPath(id: RealAgentId): string {
  return join(agentInstallDir(id), REAL_AGENTS[id].entry);
}

export function isAgentInstalled(id: RealAgentId): boolean {
  const dir = agentInstallDir(id);
  if (!existsSync(join(dir, INSTALL_MARKER)) || !existsSync(agentEntryPath(id))) return false;
  try {
    const marker = JSON.parse(readFileSync(join(dir, INSTALL_MARKER), 'utf8')) as { version?: string };
    return marker.version === REAL_AGENTS[id].version;
  } catch {
    return false;
  }
}

/** Why a real-agent test is skipped, and how to enable it. */
export function notInstalledMessage(id: RealAgentId): string {
  const a = REAL_AGENTS[id];
  return (
    `${a.title} (${a.pkg}@${a.version}) is not installed in ${agentInstallDir(id)}; ` +
    `run \`node scripts/install-test-agents.mjs ${id}\` to enable these tests.`
  );
}

/**
 * Whether a real agent's tests can run. Not installed: warn and return false (the caller skips), unless
 * SWITCHBOARD_REQUIRE_REAL_AGENTS=1 (CI, after the installer ran): then a missing agent throws, so the test file
 * fails instead of silently skipping.
 */
export function requireOrSkipAgent(id: RealAgentId): boolean {
  if (isAgentInstalled(id)) return true;
  if (process.env['SWITCHBOARD_REQUIRE_REAL_AGENTS'] === '1') throw new Error(notInstalledMessage(id));
  console.warn(`[skip] ${notInstalledMessage(id)}`);
  return false;
}

export interface AgentHome {
  /** The isolated HOME; XDG dirs are inside it. */
  home: string;
  /** Removes the directory (and everything the agent wrote there). */
  dispose(): void;
}

/** A fresh temp HOME with XDG dirs, for one agent process. */
export function createAgentHome(label = 'agent'): AgentHome {
  const home = mkdtempSync(join(tmpdir(), `sb-home-${label.replace(/[^a-z0-9-]/gi, '')}-`));
  for (const d of xdgDirs(home)) mkdirSync(d, { recursive: true });
  return { home, dispose: () => rmSync(home, { recursive: true, force: true }) };
}

function xdgDirs(home: string): string[] {
  return [
    join(home, '.config'),
    join(home, '.local', 'share'),
    join(home, '.cache'),
    join(home, '.local', 'state'),
  ];
}

export interface AgentLaunch {
  command: string;
  args: string[];
  /** The complete environment (not merged with process.env: nothing of the host leaks in). */
  env: Record<string, string>;
}

export interface AgentLaunchOptions {
  /** Fake LLM base URL, e.g. http://127.0.0.1:43123 (no trailing slash). */
  llmUrl: string;
  /** Isolated HOME (see createAgentHome); agent config files are written into it. */
  home: string;
  /** Node binary to run the agent with; default: the current one. */
  node?: string;
  /** Extra env, applied last. */
  env?: Record<string, string>;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The host env an agent needs regardless of which (PATH for its shell tools, locale), plus the isolated HOME. */
function baseEnv(home: string): Record<string, string> {
  const [config, data, cache, state] = xdgDirs(home) as [string, string, string, string];
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: config,
    XDG_DATA_HOME: data,
    XDG_CACHE_HOME: cache,
    XDG_STATE_HOME: state,
    TMPDIR: process.env['TMPDIR'] ?? tmpdir(),
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
    LANG: process.env['LANG'] ?? 'C.UTF-8',
  };
  return env;
}

/**
 * Claude Code (registry entry, @zed-industries/claude-code-acp): Anthropic Messages against `llmUrl`.
 * It routes writes through client fs/write_text_file and shell commands through client terminals, and asks
 * permission for every tool (mode `default`).
 */
export function claudeCodeLaunch(opts: AgentLaunchOptions): AgentLaunch {
  const env: Record<string, string> = {
    ...baseEnv(opts.home),
    ANTHROPIC_BASE_URL: opts.llmUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
    // No start-up network traffic (update checks, telemetry, error reports, feedback), no auto-update.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    ...(isRoot() ? { IS_SANDBOX: '1' } : {}),
    ...opts.env,
  };
  return { command: opts.node ?? process.execPath, args: [agentEntryPath('claude-code'), ...REAL_AGENTS['claude-code'].args], env };
}

/**
 * Claude Agent (@agentclientprotocol/claude-agent-acp, which runs the Claude Code it bundles): the same Anthropic
 * environment as the registry's Claude Code. It starts in mode `auto`, whose safety classifier (a side call the
 * fake LLM cannot answer) blocks tools: set mode `default` to run them.
 */
export function claudeAgentLaunch(opts: AgentLaunchOptions): AgentLaunch {
  const { env } = claudeCodeLaunch(opts);
  return { command: opts.node ?? process.execPath, args: [agentEntryPath('claude-agent'), ...REAL_AGENTS['claude-agent'].args], env };
}

/**
 * Gemini CLI: Gemini API against `llmUrl`. Writes ~/.gemini/settings.json in the isolated HOME turning off
 * usage statistics, telemetry and update checks (no env var does it).
 */
export function geminiLaunch(opts: AgentLaunchOptions): AgentLaunch {
  const settingsDir = join(opts.home, '.gemini');
  mkdirSync(settingsDir, { recursive: true });
  writeFileSync(
    join(settingsDir, 'settings.json'),
    JSON.stringify(
      {
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      },
      null,
      2,
    ),
  );
  const env: Record<string, string> = {
    ...baseEnv(opts.home),
    GEMINI_API_KEY: 'fake-gemini-key-for-tests',
    GOOGLE_GEMINI_BASE_URL: opts.llmUrl,
    // Do not re-spawn itself with a bigger heap (the child would escape our process handling).
    GEMINI_CLI_NO_RELAUNCH: 'true',
    // Trust the test workspace instead of asking (an untrusted folder disables tools).
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // Ignore any machine-wide /etc/gemini-cli/settings.json.
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(settingsDir, 'system-settings.json'),
    ...opts.env,
  };
  return { command: opts.node ?? process.execPath, args: [agentEntryPath('gemini'), ...REAL_AGENTS['gemini'].args], env };
}

/**
 * Qwen Code: OpenAI Chat Completions against `llmUrl`/v1. Starts in mode `auto` (no permission requests):
 * set mode `default` to see them. Writes ~/.qwen/settings.json turning off auto-update and usage statistics.
 */
export function qwenLaunch(opts: AgentLaunchOptions): AgentLaunch {
  const settingsDir = join(opts.home, '.qwen');
  mkdirSync(settingsDir, { recursive: true });
  writeFileSync(
    join(settingsDir, 'settings.json'),
    JSON.stringify(
      { general: { enableAutoUpdate: false }, privacy: { usageStatisticsEnabled: false } },
      null,
      2,
    ),
  );
  const env: Record<string, string> = {
    ...baseEnv(opts.home),
    OPENAI_API_KEY: 'sk-fake-key-for-tests',
    OPENAI_BASE_URL: `${opts.llmUrl}/v1`,
    OPENAI_MODEL: 'fake-model',
    // Stay one process (it would re-spawn itself with other node flags), no stats, no pre-connect probe.
    QWEN_CODE_NO_RELAUNCH: 'true',
    QWEN_USAGE_STATISTICS_ENABLED: 'false',
    QWEN_CODE_DISABLE_PRECONNECT: '1',
    ...opts.env,
  };
  return { command: opts.node ?? process.execPath, args: [agentEntryPath('qwen'), ...REAL_AGENTS['qwen'].args], env };
}

export function agentLaunch(id: RealAgentId, opts: AgentLaunchOptions): AgentLaunch {
  switch (id) {
    case 'claude-code':
      return claudeCodeLaunch(opts);
    case 'claude-agent':
      return claudeAgentLaunch(opts);
    case 'gemini':
      return geminiLaunch(opts);
    case 'qwen':
      return qwenLaunch(opts);
  }
}
