import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { Draft } from './draft';
import type { AgentMessageEntry, MessagePart, ThoughtEntry, ThreadEntry, UserMessageEntry } from './types';

type MessageKind = 'user_message' | 'agent_message' | 'thought';
type MessageEntry = UserMessageEntry | AgentMessageEntry | ThoughtEntry;

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isContentBlock(v: unknown): v is ContentBlock {
  return isRecord(v) && typeof v.type === 'string';
}

export function appendPart(parts: MessagePart[], block: ContentBlock): void {
  if (block.type === 'text' && typeof block.text === 'string') {
    const last = parts[parts.length - 1];
    if (last && last.type === 'text') {
      parts[parts.length - 1] = { type: 'text', text: last.text + block.text };
    } else {
      parts.push({ type: 'text', text: block.text });
    }
  } else {
    parts.push({ type: 'block', block });
  }
}

export function partsFromContent(content: readonly ContentBlock[]): MessagePart[] {
  const parts: MessagePart[] = [];
  for (const block of content) if (isContentBlock(block)) appendPart(parts, block);
  return parts;
}

/** Plain text of a message (text parts joined; other blocks as their URI or name). */
/**
 * What the agent said in answer to the prompt `promptId`: its messages' text (not its thoughts) until the next
 * prompt, separated by blank lines; null when the prompt is not in the thread.
 */
export function replyTo(entries: readonly ThreadEntry[], promptId: string): string | null {
  const start = entries.findIndex((e) => e.kind === 'user_message' && e.promptId === promptId);
  if (start < 0) return null;
  const out: string[] = [];
  for (let i = start + 1; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.kind === 'user_message') break;
    if (e.kind === 'agent_message') out.push(messageText(e.parts));
  }
  return out.join('\n\n');
}

export function messageText(parts: readonly MessagePart[]): string {
  let out = '';
  for (const p of parts) {
    if (p.type === 'text') out += p.text;
    else if (p.block.type === 'resource_link') out += `@${p.block.name}`;
    else if (p.block.type === 'resource') out += `@${p.block.resource.uri}`;
  }
  return out;
}

/**
 * A chunk continues the last entry when it is of the same kind and belongs to the same message:
 * a changed `messageId` starts a new message; a missing one continues the current.
 */
export function applyChunk(d: Draft, kind: MessageKind, content: unknown, rawMessageId: unknown): void {
  if (!isContentBlock(content)) return;
  const messageId = typeof rawMessageId === 'string' ? rawMessageId : null;
  const index = d.length - 1;
  const last = d.at(index);
  if (
    last &&
    last.kind === kind &&
    !(last.kind === 'user_message' && last.promptId !== null) &&
    (messageId === null || last.messageId === null || last.messageId === messageId)
  ) {
    const entry = d.mutable<MessageEntry>(index);
    if (messageId !== null && entry.messageId === null) entry.messageId = messageId;
    appendPart(entry.parts, content);
    return;
  }
  const parts: MessagePart[] = [];
  appendPart(parts, content);
  const id = d.nextEntryId();
  const entry: MessageEntry =
    kind === 'user_message' ? { kind, id, promptId: null, messageId, parts } : { kind, id, messageId, parts };
  d.push(entry);
}

/** The user's prompt as this client sent it. */
export function applyPrompt(d: Draft, promptId: string, content: readonly ContentBlock[]): void {
  d.push({ kind: 'user_message', id: d.nextEntryId(), promptId, messageId: null, parts: partsFromContent(content) });
}
