import type { SubagentEntry } from '../../../../shared/acp-thread';
import type { EffectiveConfig } from '../../../../shared/contract/session-config';
import type { PermissionRequestInfo, SessionInfo } from '../../../../shared/contract/sessions';
import type { SettingKey, SettingValue } from '../../../../shared/contract/settings';
import type { AgentPrefsRepo } from '../../agents/agent-prefs';
import type { EventBus } from '../../base/event-bus';
import type { McpSelection } from '../../mcp/mcp-servers';
import type { AgentTerminals } from '../../terminals/agent-terminals';
import type { WarningKind } from '../connection/warnings';
import type { AgentRuntime } from '../runtimes/agent-runtime';
import type { PermissionRules } from './permission-rules';
import type { SessionRows } from './session-rows';
import type { SessionTurn, SessionTurnEnd } from './turns';

/** One folded event of a session, as session.update carries it. */
export interface SessionEventItem {
  event: { type: string; update?: unknown };
}

/** What a live session needs from the service around it. */
export interface SessionHost {
  readonly bus: EventBus;
  readonly terminals: Pick<AgentTerminals, 'create' | 'releaseSession'>;
  rows(): SessionRows;
  rules(): Pick<PermissionRules, 'find' | 'set'>;
  prefs(): Pick<AgentPrefsRepo, 'get'>;
  setting<K extends SettingKey>(key: K): SettingValue<K>;
  /** The MCP servers this agent gets at session/new (Switchboard's delegation server too, when on for the session), and those left out. */
  mcpFor(agentId: string, capabilities: AgentRuntime['capabilities'], sessionId?: string): McpSelection | Promise<McpSelection>;
  /** Names of the variables Switchboard sets on the agent's process. */
  agentEnvKeys(agentId: string): string[];
  recordConfig(sessionId: string, config: EffectiveConfig): void;
  loginEnv(): Promise<Record<string, string>>;
  forgetSession(id: string): void;
  warn(agentId: string, sessionId: string | null, kind: WarningKind, message: string): void;
  /** What the session's folder is not ready for prompts until (a worktree's setup command running), or null. */
  folderHold(cwd: string): { reason: string; done: Promise<unknown> } | null;
  /** Before the prompt goes to the agent; the turn waits for it. */
  turnStarting(turn: SessionTurn): Promise<void>;
  /** After the turn ended, any way it ends. */
  turnEnded(turn: SessionTurnEnd): void;
  /** The session's status changed (a wait for the user began or ended, it failed…). */
  statusChanged(info: SessionInfo): void;
  /** Updates were folded into the session's thread (the events the renderer gets as session.update). */
  updated(sessionId: string, events: readonly SessionEventItem[]): void;
  /** The session asks the user a permission. */
  permissionAsked(info: PermissionRequestInfo): void;
  /** The agent announced a child of session `parentId` (see SubagentSessions). */
  openSubagent(parentId: string, childAcpSessionId: string): string | undefined;
  subagentUpdated(parentId: string, entry: SubagentEntry): void;
  endSubagents(parentId: string, how: 'cancel' | 'close', tellAgent?: boolean): Promise<void>;
  /** Brings back the session's agent, stopped while idle (idle-sleep.ts); resolves once the session is live again or failed. */
  wake(sessionId: string): Promise<void>;
}
