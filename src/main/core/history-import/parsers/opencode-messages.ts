import { isObject, str, unknownItem, type TranscriptItem } from './types';

/**
 * What an OpenCode session gained since its last import. OpenCode writes a message progressively: the message's
 * row first, then each part as it streams (a text part gets `time.end` once written, a tool part goes pending →
 * running → completed or error), and the assistant message gets `time.completed` (or an `error`) last. A
 * reader meets messages half written: what is final of them is imported, the rest is read again at the next
 * import, and the cursor never moves past a message that is not final. Nothing is imported twice: the cursor
 * remembers, per message not final yet, which of its parts were imported (a tool's call alone, or all of it).
 */

export interface OpencodeCursor {
  /** Every message up to this one (by time_created, then id) is final and imported in full. */
  doneTime: number;
  doneId: string;
  /** Messages after it already read, by id: final (all imported), or the parts imported so far. */
  open: Record<string, { final?: 1; parts?: Record<string, 'call' | 'done'> }>;
}

/** The cursors of releases that moved past any message read (lastMessageId, lastMessageTime). */
interface OldCursor {
  lastMessageId?: string | null;
  lastMessageTime?: number;
}

export interface SessionRead {
  items: TranscriptItem[];
  cursor: OpencodeCursor;
  /** Something is not final yet: read again at the next import. */
  pending: boolean;
}

/** An assistant message this old that never completed (OpenCode stopped part way) is taken as final. */
export const ABANDONED_MS = 24 * 60 * 60 * 1000;
/** A prompt with no message after it is final once this old (its parts are written right after its row). */
export const PROMPT_SETTLED_MS = 60 * 1000;

/** A stored cursor, of this release or an earlier one. */
export function cursorOf(saved: unknown): OpencodeCursor | null {
  if (!isObject(saved)) return null;
  if (typeof saved.doneTime === 'number' && typeof saved.doneId === 'string') {
    return { doneTime: saved.doneTime, doneId: saved.doneId, open: isObject(saved.open) ? (saved.open as OpencodeCursor['open']) : {} };
  }
  const old = saved as OldCursor;
  if (typeof old.lastMessageTime === 'number') return { doneTime: old.lastMessageTime, doneId: old.lastMessageId ?? '', open: {} };
  return null;
}

const json = (text: unknown): unknown => {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

type MessageRow = { id: unknown; time_created: unknown; data: unknown };
type PartRow = { id: unknown; data: unknown };

/** Whether a message is written in full. */
function messageFinal(info: Record<string, unknown>, created: number, hasLater: boolean, now: number): boolean {
  const role = str(info.role);
  if (role === 'assistant') {
    const time = isObject(info.time) ? info.time : {};
    return typeof time.completed === 'number' || isObject(info.error) || now - created > ABANDONED_MS;
  }
  if (role === 'user') return hasLater || now - created > PROMPT_SETTLED_MS;
  return true;
}

/**
 * Reads a session's messages after `cursor`: `messagesAfter(time, id)` lists them in order, `partsOf` a
 * message's parts in order (ids sort in creation order).
 */
export function readSession(saved: OpencodeCursor | null, now: number, messagesAfter: (time: number, id: string) => MessageRow[], partsOf: (messageId: string) => PartRow[]): SessionRead {
  const cursor: OpencodeCursor = saved ? { ...saved, open: { ...saved.open } } : { doneTime: -1, doneId: '', open: {} };
  const rows = messagesAfter(cursor.doneTime, cursor.doneId).filter((m): m is { id: string; time_created: number; data: unknown } => typeof m.id === 'string' && typeof m.time_created === 'number');
  const items: TranscriptItem[] = [];
  const open: OpencodeCursor['open'] = {};
  rows.forEach((m, k) => {
    const was = cursor.open[m.id];
    if (was?.final) {
      open[m.id] = was;
      return;
    }
    const info = json(m.data);
    const message = isObject(info) ? info : {};
    const final = messageFinal(message, m.time_created, k < rows.length - 1, now);
    const parts = { ...(was?.parts ?? {}) };
    readParts(str(message.role), final, m.time_created, partsOf(m.id), parts, items);
    open[m.id] = final ? { final: 1 } : { parts };
  });
  // The cursor moves past the messages final from its place on; those after the first one not final stay listed.
  for (const m of rows) {
    if (!open[m.id]?.final) break;
    cursor.doneTime = m.time_created;
    cursor.doneId = m.id;
    delete open[m.id];
  }
  cursor.open = open;
  return { items, cursor, pending: Object.keys(open).length > 0 };
}

/**
 * The items of a message's parts not imported yet, and which are imported now (`done`). A part that may still
 * change is left for later, and so is every part after it (the order stays OpenCode's), except the result of a
 * tool whose call was imported: a tool's call is imported once it runs (its input is known), its result once it
 * ends. A prompt is imported whole, once its message is final.
 */
function readParts(role: string | undefined, final: boolean, ts: number, rows: readonly PartRow[], done: Record<string, 'call' | 'done'>, items: TranscriptItem[]): void {
  if (role === 'user') {
    if (!final) return;
    const texts: string[] = [];
    for (const p of rows) {
      const part = json(p.data);
      if (!isObject(part)) {
        items.push(unknownItem('part not JSON', p.data, ts));
        continue;
      }
      if (part.type === 'text' && part.synthetic !== true && part.ignored !== true) texts.push(str(part.text) ?? '');
      else if (part.type === 'file') texts.push(`[${str(part.filename) ?? str(part.mime) ?? 'file'}]`);
      else if (part.type !== 'text' && !partSettled(part)) items.push(unknownItem(`part ${String(part.type)}`, part, ts));
    }
    if (texts.length) items.push({ type: 'prompt', ts, text: texts.join('\n\n') });
    return;
  }
  let blocked = false;
  for (const p of rows) {
    if (typeof p.id !== 'string') continue;
    const state = done[p.id];
    if (state === 'done') continue;
    const part = json(p.data);
    if (!isObject(part)) {
      if (!final) blocked = true;
      else if (!blocked) items.push(unknownItem('part not JSON', p.data, ts));
      if (final) done[p.id] = 'done';
      continue;
    }
    if (part.type === 'tool') {
      const tool = isObject(part.state) ? part.state : {};
      const status = str(tool.status);
      const id = str(part.callID) ?? p.id;
      if (state !== 'call') {
        if (blocked || !(final || status === 'running' || status === 'completed' || status === 'error')) {
          blocked = true;
          continue;
        }
        items.push({ type: 'tool_call', ts, id, name: str(part.tool) ?? 'tool', input: tool.input ?? {} });
        done[p.id] = 'call';
      }
      if (status === 'completed') items.push({ type: 'tool_result', ts, id, output: str(tool.output) ?? '', failed: false });
      else if (status === 'error') items.push({ type: 'tool_result', ts, id, output: str(tool.error) ?? '', failed: true });
      else if (!final) continue;
      done[p.id] = 'done';
      continue;
    }
    const settled = final || partSettled(part);
    if (blocked || !settled) {
      blocked = true;
      continue;
    }
    const item = itemOf(part, ts);
    if (item) items.push(item);
    done[p.id] = 'done';
  }
}

/** A part that will not change any more though its message goes on. */
function partSettled(part: Record<string, unknown>): boolean {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return isObject(part.time) && typeof part.time.end === 'number';
    case 'step-start':
    case 'step-finish':
    case 'snapshot':
    case 'patch':
    case 'agent':
    case 'retry':
    case 'compaction':
    case 'subtask':
    case 'file':
      return true;
    default:
      return false;
  }
}

/** The item of an assistant's part (not a tool's), if it has one. */
function itemOf(part: Record<string, unknown>, ts: number): TranscriptItem | null {
  switch (part.type) {
    case 'text':
      return part.synthetic === true || part.ignored === true ? null : { type: 'agent', ts, text: str(part.text) ?? '' };
    case 'reasoning':
      return { type: 'thought', ts, text: str(part.text) ?? '' };
    case 'file':
    case 'step-start':
    case 'step-finish':
    case 'snapshot':
    case 'patch':
    case 'agent':
    case 'retry':
    case 'compaction':
    case 'subtask':
      return null;
    default:
      return unknownItem(`part ${String(part.type)}`, part, ts);
  }
}
