export {
  INSTALL_MARKER,
  REAL_AGENTS,
  agentCacheRoot,
  agentEntryPath,
  agentInstallDir,
  agentLaunch,
  claudeAgentLaunch,
  claudeCodeLaunch,
  createAgentHome,
  geminiLaunch,
  isAgentInstalled,
  notInstalledMessage,
  qwenLaunch,
  requireOrSkipAgent,
} from './agents.js';
export type { AgentHome, AgentLaunch, AgentLaunchOptions, RealAgentId, RealAgentSpec } from './agents.js';
export { spawnAgentProcess } from './process.js';
export type { AgentProcess, SpawnAgentOptions } from './process.js';
export { placeAgentOnHost } from './on-host.js';
export type { RemoteUser } from './on-host.js';
