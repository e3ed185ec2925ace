import type { EventBus } from '../base/event-bus';
import type { AgentRepository } from '../agents/agent-repository';
import type { Db } from '../store/database';
import type { MessageLog } from '../store/message-log';
import type { AgentPrefsRepo } from '../agents/agent-prefs';
import type { AgentRuntime } from './agent-runtime';
import type { FileWrites } from './session/fs-access';
import type { LiveSession } from './session/live-session';
import type { PermissionRules } from './session/permission-rules';
import type { SecretStore } from '../agents/secret-store';
import type { SessionRows } from './session/session-rows';
import type { AgentTerminals } from '../terminals/agent-terminals';
import type { WarningKind } from './connection/warnings';
import type { TurnObserver } from './turn-observer';

export interface AcpOptions {
  /** Longest line accepted from an agent; longer ones are dropped with a warning. */
  maxLineBytes: number;
  /** How long `initialize` may take (agents may hang on network calls at start-up). */
  initializeTimeoutMs: number;
  /** Between SIGTERM and SIGKILL when stopping an agent. */
  stopGraceMs: number;
}

export const DEFAULT_ACP_OPTIONS: AcpOptions = {
  maxLineBytes: 16 * 1024 * 1024,
  initializeTimeoutMs: 60_000,
  stopGraceMs: 2000,
};

/** What agent runtimes and live sessions need from the service around them. */
export interface AcpHost {
  readonly bus: EventBus;
  readonly options: AcpOptions;
  readonly dataDir: string;
  readonly terminals: AgentTerminals;
  readonly secrets: SecretStore;
  /** Told when each prompt turn starts and ends (checkpoints). */
  readonly turnObserver?: TurnObserver | undefined;
  db(): Db;
  messageLog(): MessageLog | null;
  agents(): AgentRepository;
  prefs(): AgentPrefsRepo;
  rules(): PermissionRules;
  fileWrites(): FileWrites;
  rows(): SessionRows;
  setting(key: string): unknown;
  loginEnv(): Promise<Record<string, string>>;
  session(id: string): LiveSession | undefined;
  sessionsOfAgent(agentId: string): LiveSession[];
  forgetSession(id: string): void;
  warn(agentId: string, sessionId: string | null, kind: WarningKind, message: string): void;
  /** Runs an agent request under the supervisor's hang timeout (absent: no timeout). */
  watchRequest?<R>(rt: AgentRuntime, method: string, params: unknown, send: (signal: AbortSignal) => Promise<R>): Promise<R>;
}
