import type {
  AvailableCommand,
  ContentBlock,
  Cost,
  NoticeSeverity,
  PermissionOption,
  PlanEntry,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { ElicitationAction, ElicitationContent, ElicitationRequestView } from '../elicitation';
import type { RuleScope } from '../permission-scope';

/**
 * A UI-agnostic model of one ACP session's conversation: a list of entries folded from `session/update`
 * notifications and the client's own actions (prompts, cancel, permission answers), plus session-level
 * state. Plain JSON data: it crosses the IPC boundary as is.
 */

/** A piece of a message: adjacent text chunks are merged into one text part; other blocks are kept as they came. */
export type MessagePart = { type: 'text'; text: string } | { type: 'block'; block: ContentBlock };

export interface UserMessageEntry {
  kind: 'user_message';
  id: string;
  /** Set for prompts this client sent (from the `prompt` event); null for messages replayed by the agent. */
  promptId: string | null;
  messageId: string | null;
  parts: MessagePart[];
}

export interface AgentMessageEntry {
  kind: 'agent_message';
  id: string;
  messageId: string | null;
  parts: MessagePart[];
}

export interface ThoughtEntry {
  kind: 'thought';
  id: string;
  messageId: string | null;
  parts: MessagePart[];
}

/** A tool call's status as the client shows it: ACP's four, plus `cancelled` (the client cancelled the turn). */
export type ToolEntryStatus = ToolCallStatus | 'cancelled';

/** Output of a terminal the agent runs itself and reports through `_meta` (Claude's `terminal_output`). */
export interface MetaTerminal {
  output: string;
  exit: { exitCode: number | null; signal: string | null } | null;
}

export interface PendingPermission {
  requestId: string;
  options: PermissionOption[];
  /** Why Switchboard asks although a rule would answer (the agent offered only an "always" option for it). */
  note?: string;
  /** What Switchboard would remember for each "always" option, by option id ("run `echo *` in proj"). */
  rules?: Record<string, string>;
}

/** A stored rule answered a permission request (kept in the history: the answer's `_meta`, see `RULE_META`). */
export interface RuleAnswer {
  ruleId: number;
  agentId: string;
  toolKind: string;
  decision: 'allow' | 'reject';
  scope: RuleScope;
  /** No stored rule: the session's container fence answered (ruleId 0), its network as it was. */
  fenced?: 'none' | 'api';
}

/** The `_meta` key of a permission answer that a rule gave. */
export const RULE_META = 'switchboard/answeredByRule';

export interface ToolCallEntry {
  kind: 'tool_call';
  id: string;
  toolCallId: string;
  title: string;
  name: string | null;
  toolKind: ToolKind;
  status: ToolEntryStatus;
  content: ToolCallContent[];
  /** The diffs of the content a later update replaced with content without any (the last diff shown). */
  replacedDiffs?: Array<Extract<ToolCallContent, { type: 'diff' }>>;
  locations: ToolCallLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** A permission request waiting for the user's answer. */
  permission: PendingPermission | null;
  /** The rule that answered this tool call's permission request. */
  ruled?: RuleAnswer;
  /** Output of the client's terminals in this tool call as last stored, by terminal id (shown once they are gone). */
  storedTerminals?: Record<string, StoredTerminal>;
  /** Terminals reported through `_meta.terminal_output` / `_meta.terminal_exit`, by terminal id. */
  metaTerminals: Record<string, MetaTerminal> | null;
}

export interface PlanThreadEntry {
  kind: 'plan';
  id: string;
  entries: PlanEntry[];
  /** A plan by id (`plan_update`): edited in place by later updates of the same id. */
  planId?: string;
  /** A markdown plan (`plan_update` of type markdown); entries are empty. */
  markdown?: string;
  /** A plan kept in a file (`plan_update` of type file); entries are empty. */
  uri?: string;
  /** The agent withdrew it (`plan_removed`). */
  removed?: true;
}

export interface NoticeEntry {
  kind: 'notice';
  id: string;
  severity: NoticeSeverity;
  title: string;
  description: string | null;
  /** Switchboard's own notice that the agent's sign-in lapsed: shown with the way to sign in again. */
  signIn?: true;
}

/** A context compaction the agent reported (`compaction_update` / `compaction_summary_chunk`), patched in place. */
export interface CompactionEntry {
  kind: 'compaction';
  id: string;
  compactionId: string;
  /** in_progress, completed, failed, cancelled, or a status this client does not know. */
  status: string;
  /** The summary the agent kept of what it compacted (may stream in chunks). */
  summary: MessagePart[];
  error: string | null;
}

/** A turn that ended with an error (the agent failed the request, crashed, or asked for authentication). */
export interface TurnErrorEntry {
  kind: 'turn_error';
  id: string;
  code: number | string;
  message: string;
}

/** The agent asked the user for input (`elicitation/create`): a form, or a URL to open. */
export interface ElicitationEntry {
  kind: 'elicitation';
  id: string;
  requestId: string;
  request: ElicitationRequestView;
  /** pending until answered; a pending one is answered `cancel` with its turn. */
  state: 'pending' | ElicitationAction;
  /** What was sent with `accept` (form mode). */
  content: ElicitationContent | null;
  /** URL mode: the agent said the interaction finished (`elicitation/complete`). */
  completed: boolean;
}

/** A child's foreground work as its parent last reported it (an unknown custom state shows as `unknown`). */
export type SubagentState = 'running' | 'idle' | 'requires_action' | 'unknown';

/** A subagent session the agent started (`subagent_update`): a child session on the same connection. */
export interface SubagentEntry {
  kind: 'subagent';
  id: string;
  /** The child's ACP session id. */
  childId: string;
  title: string | null;
  description: string | null;
  /** null: not reported (or cleared). */
  state: SubagentState | null;
  /** Why its work ended (idle). */
  stopReason: string | null;
  /** The agent lets the client cancel the child's work (session/cancel with the child's id). */
  canCancel: boolean;
  /** The tool call that was running when the child was announced (the Task/Agent call that started it). */
  startedBy: string | null;
  /** The parent's turn was cancelled or the parent closed while the child was at work. */
  endedByParent: boolean;
}

/** A message between sessions (`session_message`): a parent's prompt to a child, a child's report… */
export interface SessionMessageEntry {
  kind: 'session_message';
  id: string;
  messageId: string;
  /** ACP session ids (null: not said). */
  senderSessionId: string | null;
  recipientSessionId: string | null;
  parts: MessagePart[];
}

export type ThreadEntry =
  | UserMessageEntry
  | AgentMessageEntry
  | ThoughtEntry
  | ToolCallEntry
  | PlanThreadEntry
  | NoticeEntry
  | CompactionEntry
  | TurnErrorEntry
  | ElicitationEntry
  | SubagentEntry
  | SessionMessageEntry;

export interface TurnError {
  code: number | string;
  message: string;
}

export interface TurnState {
  running: boolean;
  promptId: string | null;
  /** Index in `entries` where the current (or last) turn began. */
  startIndex: number;
  cancelRequested: boolean;
  lastStopReason: StopReason | null;
  lastError: TurnError | null;
}

export interface UsageState {
  used: number;
  size: number;
  cost: Cost | null;
}

/** A turn ended with `stopReason` after the thread's first `afterEntries` entries. */
export interface StopMark {
  afterEntries: number;
  stopReason: StopReason;
}

/** What a terminal the client ran for the agent last showed (stored terminal/output and wait_for_exit answers). */
export interface StoredTerminal {
  output: string;
  truncated: boolean;
  exit: { exitCode: number | null; signal: string | null } | null;
}

export interface ThreadState {
  /**
   * The thread's entries from index `firstIndex` on. Every index in the model (toolIndex, turn.startIndex,
   * stopMarks, planIndex) counts from the thread's first entry.
   */
  entries: readonly ThreadEntry[];
  /**
   * How many of the thread's first entries `entries` leaves out: a view that holds only the thread's tail
   * (sessions.state with `tail`; the earlier entries come page by page with sessions.entries). 0 or absent:
   * all of them. The thread has `firstIndex + entries.length` entries.
   */
  firstIndex?: number;
  /** toolCallId → index of its entry. */
  toolIndex: Readonly<Record<string, number>>;
  /** The plan entry later plans update in place (until the next user message); null: the next plan starts one. Absent: found by looking back. */
  planIndex?: number | null;
  /** Plans by id (plan_update) → index of their entry. Absent: none yet. */
  planIds?: Readonly<Record<string, number>>;
  modes: SessionModeState | null;
  /** In the agent's order (its preferred priority). */
  configOptions: readonly SessionConfigOption[];
  commands: readonly AvailableCommand[];
  usage: UsageState | null;
  title: string | null;
  updatedAt: string | null;
  /** The latest plan (also shown as a plan entry in the thread). */
  plan: readonly PlanEntry[] | null;
  /** Turns that ended other than with end_turn (cancelled, max_tokens…): where, and why. */
  stopMarks: readonly StopMark[];
  turn: TurnState;
  /** Next entry id number. */
  nextId: number;
  /** Bumped on every applied event: cheap change detection for views. */
  version: number;
}

/** What the thread folds: the agent's updates and the client's own actions, in arrival order. */
export type ThreadEvent =
  | { type: 'update'; update: SessionUpdate }
  | { type: 'prompt'; promptId: string; content: ContentBlock[] }
  | { type: 'cancel' }
  /** The session closed: its children still at work are shown ended. */
  | { type: 'closed' }
  | { type: 'turn_end'; promptId: string | null; stopReason: StopReason | null; error: TurnError | null }
  /** Modes and config options from session/new, session/load or session/resume. */
  | { type: 'setup'; modes: SessionModeState | null; configOptions: SessionConfigOption[] | null }
  /** The client changed the mode (session/set_mode succeeded). */
  | { type: 'mode'; modeId: string }
  /** The complete config options from a session/set_config_option response. */
  | { type: 'config_options'; configOptions: SessionConfigOption[] }
  | { type: 'permission'; requestId: string; toolCall: ToolCallUpdate; options: PermissionOption[]; note?: string; rules?: Record<string, string> }
  | { type: 'permission_resolved'; requestId: string; toolCallId: string; outcome: 'selected' | 'cancelled'; optionId: string | null; byRule?: RuleAnswer }
  | { type: 'elicitation'; requestId: string; request: ElicitationRequestView }
  | { type: 'elicitation_resolved'; requestId: string; action: ElicitationAction; content: ElicitationContent | null }
  /** URL mode: the agent's `elicitation/complete`. */
  | { type: 'elicitation_complete'; elicitationId: string }
  /** The agent said its sign-in lapsed (auth/status_update): what it was signed in with. */
  | { type: 'auth_lapsed'; account: string | null }
  /** The client answered terminal/output or terminal/wait_for_exit (stored sessions: the output outlives the terminal). */
  | { type: 'terminal_output'; terminalId: string; output: string | null; truncated: boolean; exit: { exitCode: number | null; signal: string | null } | null };
