import type { Draft } from './draft';
import { appendPart, isContentBlock, isRecord } from './messages';
import type { SessionMessageEntry, SubagentEntry, SubagentState } from './types';

/**
 * ACP subagent sessions (`subagent_update`) and inter-session messages (`session_message`,
 * `session_message_chunk`). A child is announced on its parent by the first `subagent_update` naming its
 * session id: one entry, at that place in the parent's thread (right after the tool call or message that
 * started it); later updates patch it there. Omitted fields keep their value, null clears them.
 * Everything here comes from the agent: ids, titles and counts are bounded.
 */

/** Children one thread shows; later announcements are ignored (the core refuses to open them too). */
export const MAX_SUBAGENTS = 32;
const MAX_ID = 200;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 1000;
const KNOWN_STATES: ReadonlySet<string> = new Set(['running', 'idle', 'requires_action', 'unknown']);

/** Text from the agent for a one-line label: control and bidi characters out, whitespace folded, bounded. */
export function cleanLabel(v: unknown, max: number): string | null {
  if (typeof v !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const s = v.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, ' ').replace(/\s+/g, ' ').trim();
  if (!s) return null;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

const idOf = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= MAX_ID ? v : null);

function subagentIndex(d: Draft, childId: string): number | undefined {
  for (let i = d.length - 1; i >= d.first; i--) {
    const e = d.at(i);
    if (e?.kind === 'subagent' && e.childId === childId) return i;
  }
  return undefined;
}

function countSubagents(d: Draft): number {
  let n = 0;
  for (let i = d.first; i < d.length; i++) if (d.at(i)?.kind === 'subagent') n++;
  return n;
}

/** The tool call of the current turn still running when the child was announced: the one that started it. */
function startingToolCall(d: Draft): string | null {
  for (let i = d.length - 1; i >= Math.max(d.first, d.state.turn.startIndex); i--) {
    const e = d.at(i);
    if (e?.kind === 'tool_call' && (e.status === 'pending' || e.status === 'in_progress')) return e.toolCallId;
  }
  return null;
}

export function applySubagentUpdate(d: Draft, u: Record<string, unknown>): void {
  const childId = idOf(u.sessionId);
  if (childId === null) return;
  let index = subagentIndex(d, childId);
  if (index === undefined) {
    if (countSubagents(d) >= MAX_SUBAGENTS) return;
    index = d.push({
      kind: 'subagent',
      id: d.nextEntryId(),
      childId,
      title: null,
      description: null,
      state: null,
      stopReason: null,
      canCancel: false,
      startedBy: startingToolCall(d),
      endedByParent: false,
    });
  }
  const entry = d.mutable<SubagentEntry>(index);
  if ('title' in u) entry.title = cleanLabel(u.title, MAX_TITLE);
  if ('description' in u) entry.description = cleanLabel(u.description, MAX_DESCRIPTION);
  if ('capabilities' in u) entry.canCancel = isRecord(u.capabilities) && isRecord(u.capabilities.cancel);
  if ('state' in u) {
    const state = isRecord(u.state) && typeof u.state.state === 'string' ? u.state.state : null;
    entry.state = state === null ? null : KNOWN_STATES.has(state) ? (state as SubagentState) : 'unknown';
    entry.stopReason = state === 'idle' && isRecord(u.state) ? cleanLabel(u.state.stopReason, 60) : null;
    // A child the agent reports at work again is not ended by the parent's earlier cancel any more.
    if (state === 'running' || state === 'requires_action') entry.endedByParent = false;
  }
}

/**
 * The parent's turn was cancelled, or the parent closed: children still at work are shown ended (the agent
 * stops them with the parent's work; one that goes on says so with its next update).
 */
export function endSubagents(d: Draft): void {
  for (let i = d.first; i < d.length; i++) {
    const e = d.at(i);
    if (e?.kind !== 'subagent' || !isWorking(e)) continue;
    const m = d.mutable<SubagentEntry>(i);
    m.endedByParent = true;
  }
}

/** The child is at work as far as its entry says (not ended by its parent). */
export const isWorking = (e: SubagentEntry): boolean => !e.endedByParent && (e.state === 'running' || e.state === 'requires_action');

function messageIndex(d: Draft, messageId: string): number | undefined {
  for (let i = d.length - 1; i >= d.first; i--) {
    const e = d.at(i);
    if (e?.kind === 'session_message' && e.messageId === messageId) return i;
  }
  return undefined;
}

function messageEntry(d: Draft, messageId: string): SessionMessageEntry {
  const i = messageIndex(d, messageId);
  if (i !== undefined) return d.mutable<SessionMessageEntry>(i);
  const index = d.push({ kind: 'session_message', id: d.nextEntryId(), messageId, senderSessionId: null, recipientSessionId: null, parts: [] });
  return d.mutable<SessionMessageEntry>(index);
}

/** An upsert of a message between sessions: its participants, and its content when given (replaces it). */
export function applySessionMessage(d: Draft, u: Record<string, unknown>): void {
  const messageId = idOf(u.messageId);
  if (messageId === null) return;
  const entry = messageEntry(d, messageId);
  if ('senderSessionId' in u) entry.senderSessionId = idOf(u.senderSessionId);
  if ('recipientSessionId' in u) entry.recipientSessionId = idOf(u.recipientSessionId);
  if (Array.isArray(u.content)) {
    entry.parts = [];
    for (const block of u.content) if (isContentBlock(block)) appendPart(entry.parts, block);
  }
}

export function applySessionMessageChunk(d: Draft, u: Record<string, unknown>): void {
  const messageId = idOf(u.messageId);
  if (messageId === null || !isContentBlock(u.content)) return;
  appendPart(messageEntry(d, messageId).parts, u.content);
}
