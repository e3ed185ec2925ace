import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { CHUNK_UPDATE_KINDS } from '../../../../shared/acp-thread';

type TextChunk = Extract<SessionUpdate, { sessionUpdate: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk' }>;

/** A plain text chunk: nothing but kind, text content and messageId (no annotations, no _meta). */
function plainText(u: Record<string, unknown>): string | null {
  if (!CHUNK_UPDATE_KINDS.has(u.sessionUpdate as string)) return null;
  for (const k in u) if (k !== 'sessionUpdate' && k !== 'content' && k !== 'messageId') return null;
  const c = u.content as Record<string, unknown> | undefined;
  if (typeof c !== 'object' || c === null || c.type !== 'text' || typeof c.text !== 'string') return null;
  for (const k in c) if (k !== 'type' && k !== 'text') return null;
  return c.text;
}

/**
 * Joins consecutive plain text chunks of one message (same kind and messageId) into one update: a
 * streamed answer arrives as hundreds of small chunks a second, and each event costs the thread, the
 * socket and the renderer more than its text. The thread folds the joined chunk exactly as it would the
 * pieces. `count` is how many wire updates each result stands for.
 */
export function joinChunkRuns<T>(items: ReadonlyArray<{ update: SessionUpdate; extra: T }>): Array<{ update: SessionUpdate; extra: T; count: number }> {
  const out: Array<{ update: SessionUpdate; extra: T; count: number }> = [];
  let run: { at: number; kind: string; messageId: unknown; parts: string[] } | null = null;
  const close = () => {
    if (run && run.parts.length > 1) {
      const first = out[run.at]!.update as TextChunk;
      const joined = { sessionUpdate: first.sessionUpdate, content: { type: 'text', text: run.parts.join('') } } as TextChunk;
      if (first.messageId !== undefined) joined.messageId = first.messageId;
      out[run.at]!.update = joined;
    }
    run = null;
  };
  for (const item of items) {
    const u = item.update as unknown as Record<string, unknown>;
    const text = plainText(u);
    if (text !== null && run !== null && run.kind === u.sessionUpdate && run.messageId === u.messageId) {
      run.parts.push(text);
      const last = out[run.at]!;
      last.extra = item.extra;
      last.count++;
      continue;
    }
    close();
    out.push({ update: item.update, extra: item.extra, count: 1 });
    if (text !== null) run = { at: out.length - 1, kind: u.sessionUpdate as string, messageId: u.messageId, parts: [text] };
  }
  close();
  return out;
}
