import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { Draft, type OnMissed } from './draft';
import { applyElicitation, applyElicitationComplete, applyElicitationResolved } from './elicitations';
import { isRecord } from './messages';
import { applyAuthLapsed, applyConfigOptions, applyCurrentMode, applySetup } from './session-state';
import { applyPermission, applyPermissionResolved, applyStoredTerminal } from './tool-calls';
import { endSubagents } from './subagents';
import { cancelTurn, endTurn, startTurn } from './turns';
import type { ThreadEvent, ThreadState } from './types';
import { updateRow } from './updates';

export function createThread(): ThreadState {
  return {
    entries: [],
    firstIndex: 0,
    toolIndex: {},
    planIndex: null,
    modes: null,
    configOptions: [],
    commands: [],
    usage: null,
    title: null,
    updatedAt: null,
    plan: null,
    stopMarks: [],
    turn: { running: false, promptId: null, startIndex: 0, cancelRequested: false, lastStopReason: null, lastError: null },
    nextId: 1,
    version: 0,
  };
}

function applyUpdate(d: Draft, update: SessionUpdate): void {
  const u = update as unknown as Record<string, unknown>;
  if (!isRecord(u)) return;
  // Unknown kinds change nothing.
  updateRow(u.sessionUpdate)?.apply?.(d, u);
}

function apply(d: Draft, e: ThreadEvent): void {
  switch (e.type) {
    case 'update':
      return applyUpdate(d, e.update);
    case 'prompt':
      return startTurn(d, e);
    case 'cancel':
      cancelTurn(d);
      return endSubagents(d);
    case 'closed':
      return endSubagents(d);
    case 'turn_end':
      return endTurn(d, e.stopReason, e.error);
    case 'setup':
      return applySetup(d, e.modes, e.configOptions);
    case 'mode':
      return applyCurrentMode(d, e.modeId);
    case 'config_options':
      return applyConfigOptions(d, e.configOptions);
    case 'permission':
      return applyPermission(d, e.requestId, e.toolCall, e.options, e);
    case 'permission_resolved':
      return applyPermissionResolved(d, e.requestId, e.toolCallId, e.byRule);
    case 'terminal_output':
      return applyStoredTerminal(d, e);
    case 'elicitation':
      return applyElicitation(d, e.requestId, e.request);
    case 'elicitation_resolved':
      return applyElicitationResolved(d, e.requestId, e.action, e.content);
    case 'elicitation_complete':
      return applyElicitationComplete(d, e.elicitationId);
    case 'auth_lapsed':
      return applyAuthLapsed(d, e.account);
  }
}

/**
 * Folds a batch of events into a new state. The input state is not modified; unchanged entries are
 * shared with it. Feed events in batches (per animation frame, per stdout chunk): the cost of a batch
 * is one copy of the entries array plus the work of its events.
 * A state that holds only the thread's tail (firstIndex > 0) folds what it holds; `onMissed` hears of the
 * earlier entries the batch changes (that the view holds elsewhere, and must fetch again).
 * `changed`, when given, receives the indices of the entries the batch added or replaced, in ascending order.
 */
export function applyEvents(state: ThreadState, events: readonly ThreadEvent[], onMissed?: OnMissed, changed?: number[]): ThreadState {
  if (events.length === 0) return state;
  const d = new Draft(state, onMissed ?? null);
  for (const e of events) apply(d, e);
  // One by one: a spread of a large batch's indices would overflow the stack.
  if (changed) for (const i of d.changedIndices()) changed.push(i);
  return d.finish();
}

export const applyEvent = (state: ThreadState, event: ThreadEvent): ThreadState => applyEvents(state, [event]);
