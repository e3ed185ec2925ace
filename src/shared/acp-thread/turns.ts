import type { StopReason } from '@agentclientprotocol/sdk';
import type { Draft } from './draft';
import { applyPrompt } from './messages';
import { markUnfinishedToolCalls } from './tool-calls';
import type { ThreadEvent, TurnError } from './types';

/** A prompt turn: from the user's prompt to the agent's stop reason (or an error). */

export function startTurn(d: Draft, event: Extract<ThreadEvent, { type: 'prompt' }>): void {
  d.state.turn = {
    running: true,
    promptId: event.promptId,
    startIndex: d.length,
    cancelRequested: false,
    lastStopReason: null,
    lastError: null,
  };
  applyPrompt(d, event.promptId, Array.isArray(event.content) ? event.content : []);
}

/** The client sent session/cancel: unfinished tool calls of the turn are shown cancelled right away. */
export function cancelTurn(d: Draft): void {
  if (!d.state.turn.running) return;
  d.state.turn.cancelRequested = true;
  markUnfinishedToolCalls(d, d.state.turn.startIndex, 'cancelled');
}

export function endTurn(d: Draft, stopReason: StopReason | null, error: TurnError | null): void {
  const turn = d.state.turn;
  if (error) {
    markUnfinishedToolCalls(d, turn.startIndex, 'failed');
    d.push({ kind: 'turn_error', id: d.nextEntryId(), code: error.code, message: error.message });
  } else if (stopReason === 'cancelled') {
    markUnfinishedToolCalls(d, turn.startIndex, 'cancelled');
  }
  d.state.turn = { ...turn, running: false, lastStopReason: stopReason, lastError: error };
  // Marked in the thread itself, so that a stored or reopened session shows it as the live one did.
  if (!error && stopReason && stopReason !== 'end_turn') d.state.stopMarks = [...(d.state.stopMarks ?? []), { afterEntries: d.length, stopReason }];
}
