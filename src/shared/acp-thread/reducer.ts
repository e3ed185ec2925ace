import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { Draft } from './draft';
import { applyChunk, isRecord } from './messages';
import { applyPlan } from './plan';
import {
  applyCommands,
  applyConfigOptions,
  applyCurrentMode,
  applyNotice,
  applySessionInfo,
  applySetup,
  applyUsage,
} from './session-state';
import { applyPermission, applyPermissionResolved, applyToolCall } from './tool-calls';
import { cancelTurn, endTurn, startTurn } from './turns';
import type { ThreadEvent, ThreadState } from './types';

export function createThread(): ThreadState {
  return {
    entries: [],
    toolIndex: {},
    modes: null,
    configOptions: [],
    commands: [],
    usage: null,
    title: null,
    updatedAt: null,
    plan: null,
    turn: { running: false, promptId: null, startIndex: 0, cancelRequested: false, lastStopReason: null, lastError: null },
    nextId: 1,
    version: 0,
  };
}

/** The `sessionUpdate` kinds this model understands; anything else is ignored. */
export const KNOWN_UPDATE_KINDS: ReadonlySet<string> = new Set([
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
  'notice',
  'compaction_update',
  'compaction_summary_chunk',
]);

function applyUpdate(d: Draft, update: SessionUpdate): void {
  const u = update as unknown as Record<string, unknown>;
  if (!isRecord(u)) return;
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
      return applyChunk(d, 'agent_message', u.content, u.messageId);
    case 'user_message_chunk':
      return applyChunk(d, 'user_message', u.content, u.messageId);
    case 'agent_thought_chunk':
      return applyChunk(d, 'thought', u.content, u.messageId);
    case 'tool_call':
    case 'tool_call_update':
      return applyToolCall(d, u);
    case 'plan':
      return applyPlan(d, u.entries);
    case 'available_commands_update':
      return applyCommands(d, u.availableCommands);
    case 'current_mode_update':
      // The schema's field is currentModeId; the prose docs show modeId.
      return applyCurrentMode(d, typeof u.currentModeId === 'string' ? u.currentModeId : u.modeId);
    case 'config_option_update':
      return applyConfigOptions(d, u.configOptions);
    case 'session_info_update':
      return applySessionInfo(d, u);
    case 'usage_update':
      return applyUsage(d, u);
    case 'notice':
      return applyNotice(d, u);
    default:
      // Unknown kinds (and compaction, which this client does not advertise) change nothing.
      return;
  }
}

function apply(d: Draft, e: ThreadEvent): void {
  switch (e.type) {
    case 'update':
      return applyUpdate(d, e.update);
    case 'prompt':
      return startTurn(d, e);
    case 'cancel':
      return cancelTurn(d);
    case 'turn_end':
      return endTurn(d, e.stopReason, e.error);
    case 'setup':
      return applySetup(d, e.modes, e.configOptions);
    case 'mode':
      return applyCurrentMode(d, e.modeId);
    case 'config_options':
      return applyConfigOptions(d, e.configOptions);
    case 'permission':
      return applyPermission(d, e.requestId, e.toolCall, e.options);
    case 'permission_resolved':
      return applyPermissionResolved(d, e.requestId, e.toolCallId);
  }
}

/**
 * Folds a batch of events into a new state. The input state is not modified; unchanged entries are
 * shared with it. Feed events in batches (per animation frame, per stdout chunk): the cost of a batch
 * is one copy of the entries array plus the work of its events.
 */
export function applyEvents(state: ThreadState, events: readonly ThreadEvent[]): ThreadState {
  if (events.length === 0) return state;
  const d = new Draft(state);
  for (const e of events) apply(d, e);
  return d.finish();
}

export const applyEvent = (state: ThreadState, event: ThreadEvent): ThreadState => applyEvents(state, [event]);
