import type { Draft } from './draft';
import { appendPart, isContentBlock, partsFromContent } from './messages';
import type { AgentMessageEntry, ThoughtEntry, UserMessageEntry } from './types';

/**
 * ACP v2's whole-message updates (`user_message`, `agent_message`, `agent_thought`; draft alpha.17) and its
 * chunks keyed by a required `messageId`, folded into this thread's message entries. Built ahead of a v2 agent
 * (docs/acp-v2.md): the v1 wire never sends these kinds, and the v2 path will route them here.
 *
 * - An upsert names its message by `messageId`: a new id makes a message, a known one is changed in place,
 *   wherever it is in the thread.
 * - `content` is a patch field: absent leaves the content, `null` or `[]` clears it, an array replaces it (the
 *   chunks streamed so far included). `_meta` is not shown, so it changes nothing here.
 * - A chunk appends to the message with its `messageId`, wherever it is (v1 only continues the last entry).
 * - Prompt acknowledgement: the agent's `user_message` for a prompt this client sent takes the place of the
 *   client's own entry (it is given the agent's `messageId`) instead of showing the prompt twice.
 */

export type V2MessageKind = 'user_message' | 'agent_message' | 'thought';
type MessageEntry = UserMessageEntry | AgentMessageEntry | ThoughtEntry;

/** The v2 session update kinds this module folds, and the entry kind each shows as. */
export const V2_MESSAGE_UPDATES: Readonly<Record<string, V2MessageKind>> = {
  user_message: 'user_message',
  agent_message: 'agent_message',
  agent_thought: 'thought',
};

/** How far back an id is looked for: a thread's recent messages (an id older than that starts a new entry). */
const LOOK_BACK = 2000;

const isMessageId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 1024;

/** Index of the message of this kind and id among the last LOOK_BACK entries held. */
function messageIndex(d: Draft, kind: V2MessageKind, messageId: string): number | undefined {
  const stop = Math.max(d.first, d.length - LOOK_BACK);
  for (let i = d.length - 1; i >= stop; i--) {
    const e = d.at(i);
    if (e?.kind === kind && e.messageId === messageId) return i;
  }
  return undefined;
}

/**
 * The prompt this client sent that no agent message acknowledged yet: the last user entry with a promptId and
 * no messageId, if nothing but the agent's answer to it follows (a later user message means it was passed).
 */
function unacknowledgedPrompt(d: Draft): number | undefined {
  const stop = Math.max(d.first, d.length - LOOK_BACK);
  for (let i = d.length - 1; i >= stop; i--) {
    const e = d.at(i);
    if (e?.kind !== 'user_message') continue;
    return e.promptId !== null && e.messageId === null ? i : undefined;
  }
  return undefined;
}

function newMessage(d: Draft, kind: V2MessageKind, messageId: string): number {
  const id = d.nextEntryId();
  const entry: MessageEntry = kind === 'user_message' ? { kind, id, promptId: null, messageId, parts: [] } : { kind, id, messageId, parts: [] };
  return d.push(entry);
}

/** A v2 whole-message update (upsert by `messageId`). Without a valid `messageId` it is ignored. */
export function applyMessageUpsert(d: Draft, kind: V2MessageKind, u: Record<string, unknown>): void {
  if (!isMessageId(u.messageId)) return;
  const messageId = u.messageId;
  let index = messageIndex(d, kind, messageId);
  if (index === undefined && kind === 'user_message') {
    const prompt = unacknowledgedPrompt(d);
    if (prompt !== undefined) {
      d.mutable<UserMessageEntry>(prompt).messageId = messageId;
      index = prompt;
    }
  }
  index ??= newMessage(d, kind, messageId);
  if (!('content' in u)) return;
  const entry = d.mutable<MessageEntry>(index);
  const content = u.content;
  entry.parts = Array.isArray(content) ? partsFromContent(content.filter(isContentBlock)) : [];
}

/** A v2 chunk: appended to the message with its `messageId` (made when new). Without one it is ignored. */
export function applyChunkById(d: Draft, kind: V2MessageKind, u: Record<string, unknown>): void {
  if (!isMessageId(u.messageId) || !isContentBlock(u.content)) return;
  const index = messageIndex(d, kind, u.messageId) ?? newMessage(d, kind, u.messageId);
  appendPart(d.mutable<MessageEntry>(index).parts, u.content);
}
