import type { Draft } from './draft';
import { applyCompactionSummaryChunk, applyCompactionUpdate } from './compaction';
import { applyChunk } from './messages';
import { applyPlan } from './plan';
import { applyPlanRemoved, applyPlanUpdate } from './plans-by-id';
import { applyCommands, applyConfigOptions, applyCurrentMode, applyNotice, applySessionInfo, applyUsage } from './session-state';
import { applySessionMessage, applySessionMessageChunk, applySubagentUpdate } from './subagents';
import { applyToolCall } from './tool-calls';
import type { ThreadEntry } from './types';

/**
 * THE table of ACP `session/update` kinds: which thread entry kind each one shows as (null: it changes
 * session state only, or nothing) and how the thread folds it. Live sessions, restored sessions, the
 * history index and the renderer's transcript all read update kinds through this table.
 *
 * What a new update kind or entry kind touches (this row, the entry type, its view, the conformance table):
 * the README's "What adding one of each touches", kept true by test/repo/adding-counts.test.ts.
 */

export type EntryKind = ThreadEntry['kind'];

interface UpdateRow {
  /** The thread entry this update creates or changes; null when it shows nowhere in the thread. */
  readonly entry: EntryKind | null;
  /** Folds the update into the thread; null for kinds the client knows but ignores. */
  readonly apply: ((d: Draft, u: Record<string, unknown>) => void) | null;
}

export const UPDATE_KINDS = {
  user_message_chunk: { entry: 'user_message', apply: (d, u) => applyChunk(d, 'user_message', u.content, u.messageId) },
  agent_message_chunk: { entry: 'agent_message', apply: (d, u) => applyChunk(d, 'agent_message', u.content, u.messageId) },
  agent_thought_chunk: { entry: 'thought', apply: (d, u) => applyChunk(d, 'thought', u.content, u.messageId) },
  tool_call: { entry: 'tool_call', apply: applyToolCall },
  tool_call_update: { entry: 'tool_call', apply: applyToolCall },
  plan: { entry: 'plan', apply: (d, u) => applyPlan(d, u.entries) },
  plan_update: { entry: 'plan', apply: applyPlanUpdate },
  plan_removed: { entry: 'plan', apply: applyPlanRemoved },
  notice: { entry: 'notice', apply: applyNotice },
  available_commands_update: { entry: null, apply: (d, u) => applyCommands(d, u.availableCommands) },
  // The schema's field is currentModeId; the prose docs show modeId.
  current_mode_update: { entry: null, apply: (d, u) => applyCurrentMode(d, typeof u.currentModeId === 'string' ? u.currentModeId : u.modeId) },
  config_option_update: { entry: null, apply: (d, u) => applyConfigOptions(d, u.configOptions) },
  session_info_update: { entry: null, apply: applySessionInfo },
  usage_update: { entry: null, apply: applyUsage },
  compaction_update: { entry: 'compaction', apply: applyCompactionUpdate },
  compaction_summary_chunk: { entry: 'compaction', apply: applyCompactionSummaryChunk },
  subagent_update: { entry: 'subagent', apply: applySubagentUpdate },
  session_message: { entry: 'session_message', apply: applySessionMessage },
  session_message_chunk: { entry: 'session_message', apply: applySessionMessageChunk },
} as const satisfies Record<string, UpdateRow>;

export type UpdateKind = keyof typeof UPDATE_KINDS;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The row of a `sessionUpdate` value, or undefined for kinds this client does not know. */
export function updateRow(sessionUpdate: unknown): UpdateRow | undefined {
  return typeof sessionUpdate === 'string' && hasOwn(UPDATE_KINDS, sessionUpdate) ? UPDATE_KINDS[sessionUpdate as UpdateKind] : undefined;
}

/** The thread entry kind a `sessionUpdate` value shows as; null for state-only, ignored and unknown kinds. */
export const entryKindOf = (sessionUpdate: unknown): EntryKind | null => updateRow(sessionUpdate)?.entry ?? null;

/** The `sessionUpdate` kinds this model understands; anything else is ignored. */
export const KNOWN_UPDATE_KINDS: ReadonlySet<string> = new Set(Object.keys(UPDATE_KINDS));

/** Update kinds that stream a message in chunks (joinable into one update). */
export const CHUNK_UPDATE_KINDS: ReadonlySet<string> = updateKindsShowingAs(['user_message', 'agent_message', 'thought']);

/** Update kinds that carry the conversation (restore: whether the store already holds it). */
export const CONVERSATION_UPDATE_KINDS: ReadonlySet<string> = updateKindsShowingAs(['user_message', 'agent_message', 'thought', 'tool_call', 'plan']);

/** Update kinds that show as one of these entry kinds. */
export function updateKindsShowingAs(kinds: readonly EntryKind[]): ReadonlySet<string> {
  return new Set(Object.entries(UPDATE_KINDS as Record<string, UpdateRow>).flatMap(([k, row]) => (row.entry !== null && kinds.includes(row.entry) ? [k] : [])));
}
