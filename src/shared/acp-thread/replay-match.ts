import { isRecord } from './messages';
import { CHUNK_UPDATE_KINDS, entryKindOf } from './updates';
import type { MessagePart, ThreadState } from './types';

type Role = 'user_message' | 'agent_message' | 'thought';

/** One piece of the stored conversation, as a replay is compared with it. */
type Unit =
  | { kind: 'message'; role: Role; messageId: string | null; text: string; loose: string | null }
  | { kind: 'tool'; toolCallId: string }
  | { kind: 'plan'; key: string };

/**
 * A content block as compared: text as is; other blocks by type and URI (agents replay them with data
 * re-read or left out, so their bytes are not compared).
 */
function blockKey(block: unknown): string {
  if (!isRecord(block)) return '';
  if (block.type === 'text') return typeof block.text === 'string' ? block.text : '';
  const uri = block.type === 'resource' && isRecord(block.resource) ? block.resource.uri : block.uri;
  return `\u0000${String(block.type)}:${typeof uri === 'string' ? uri : ''}\u0000`;
}

const partsKey = (parts: readonly MessagePart[]): string => parts.map((p) => (p.type === 'text' ? p.text : blockKey(p.block))).join('');

/** A text as compared when the agent re-renders it (markdown, separators, spacing): letters and digits only. */
const loose = (text: string): string => text.replace(/[^\p{L}\p{N}]+/gu, '');

/** How far past the cursor a re-rendered text is looked for. */
const LOOSE_WINDOW = 64;

function unitsOf(thread: ThreadState): Unit[] {
  const units: Unit[] = [];
  for (const e of thread.entries) {
    if (e.kind === 'user_message' || e.kind === 'agent_message' || e.kind === 'thought') {
      const text = partsKey(e.parts);
      units.push({ kind: 'message', role: e.kind, messageId: e.messageId, text, loose: e.kind === 'user_message' ? null : loose(text) });
    } else if (e.kind === 'tool_call') {
      units.push({ kind: 'tool', toolCallId: e.toolCallId });
    } else if (e.kind === 'plan') {
      units.push({ kind: 'plan', key: JSON.stringify(e.entries) });
    }
  }
  return units;
}

/**
 * Recognises a `session/load` replay of a stored conversation, whenever it arrives: agents replay before
 * their answer, after it (Gemini CLI 0.61), or both, and wrap what they replay in what they stored beside it
 * (Gemini's `<session_context>` preamble and "[Function Response: …]" results as user messages, thoughts
 * re-rendered as markdown).
 *
 * Until the next prompt is sent (`promptSent`), no turn runs: every conversation update of the session is
 * replay, whatever it holds. After it, the rest of a replay still on its way is told from the new turn by
 * content: a chunk continuing the stored conversation in order (by text, re-rendered text, or a stored
 * `messageId`), a stored tool call, a stored plan, or a user message (a turn does not send those) is replay;
 * the first other conversation update is new, and so is everything after it. State updates (commands, mode,
 * usage…) are never dropped.
 */
export class ReplayMatcher {
  private readonly units: Unit[];
  private readonly messageIds = new Set<string>();
  private readonly toolCallIds = new Set<string>();
  /** The unit the next replayed piece should continue, and how much of its text was replayed. */
  private at = 0;
  private offset = 0;
  private prompted = false;
  private ended = false;

  constructor(thread: ThreadState) {
    this.units = unitsOf(thread);
    for (const u of this.units) {
      if (u.kind === 'message' && u.messageId !== null) this.messageIds.add(u.messageId);
      if (u.kind === 'tool') this.toolCallIds.add(u.toolCallId);
    }
  }

  /** Whether the stored thread holds any conversation (else a load's replay is the conversation itself). */
  get hasConversation(): boolean {
    return this.units.length > 0;
  }

  /** True once an update was new: nothing later is a replay. */
  get done(): boolean {
    return this.ended;
  }

  /** Whether a prompt was sent in the session since its load. */
  get promptWasSent(): boolean {
    return this.prompted;
  }

  /** A prompt was sent in the session: from now on, the first update that does not repeat the conversation ends the replay. */
  promptSent(): void {
    this.prompted = true;
  }

  /** Whether `update` (a `session/update`'s `update`) repeats the stored conversation. */
  isReplay(update: unknown): boolean {
    if (this.ended || !isRecord(update)) return false;
    const kind = update.sessionUpdate;
    if (typeof kind === 'string' && CHUNK_UPDATE_KINDS.has(kind)) {
      const role = entryKindOf(kind) as Role;
      const text = blockKey(update.content);
      const messageId = typeof update.messageId === 'string' ? update.messageId : null;
      const followed = this.followText(role, text);
      if (followed || (messageId !== null && this.messageIds.has(messageId)) || role === 'user_message') return true;
      return this.unmatched();
    }
    if (kind === 'tool_call' || kind === 'tool_call_update') {
      const id = update.toolCallId;
      if (typeof id !== 'string' || !this.toolCallIds.has(id)) return this.unmatched();
      const at = this.find((u) => u.kind === 'tool' && u.toolCallId === id);
      if (at >= 0) this.moveTo(at + 1);
      return true;
    }
    if (kind === 'plan') {
      const key = JSON.stringify(update.entries);
      const at = this.find((u) => u.kind === 'plan' && u.key === key);
      if (at >= 0) this.moveTo(at + 1);
      return at >= 0 || !this.prompted;
    }
    return false;
  }

  /** A conversation update that repeats nothing stored: replay still before a prompt, new after one. */
  private unmatched(): boolean {
    if (!this.prompted) return true;
    this.ended = true;
    return false;
  }

  private moveTo(at: number): void {
    this.at = at;
    this.offset = 0;
  }

  /** The first unit from the cursor on that `test` accepts, or -1. */
  private find(test: (u: Unit) => boolean): number {
    for (let i = this.at; i < this.units.length; i++) if (test(this.units[i]!)) return i;
    return -1;
  }

  /** Consumes `text` of a `role` message when it continues the stored conversation (here, or further on). */
  private followText(role: Role, text: string): boolean {
    if (text === '') return this.at < this.units.length;
    const cur = this.units[this.at];
    if (cur?.kind === 'message' && cur.role === role && cur.text.startsWith(text, this.offset)) {
      this.consume(text);
      return true;
    }
    const from = this.offset > 0 ? this.at + 1 : this.at;
    for (let i = from; i < this.units.length; i++) {
      const u = this.units[i]!;
      if (u.kind === 'message' && u.role === role && u.text.startsWith(text)) {
        this.moveTo(i);
        this.consume(text);
        return true;
      }
    }
    // User messages are not compared loosely: any is replay, and a short one would move the cursor far.
    return role !== 'user_message' && this.followLoosely(role, loose(text));
  }

  /** The same text re-rendered (`**Subject**\ndescription` for `Subject: description`): a stored message of the role holding it. */
  private followLoosely(role: Role, text: string): boolean {
    if (text === '') return false;
    for (let i = this.at; i < Math.min(this.units.length, this.at + LOOSE_WINDOW); i++) {
      const u = this.units[i]!;
      if (u.kind !== 'message' || u.role !== role || u.loose === null || !u.loose.includes(text)) continue;
      if (u.loose.endsWith(text)) this.moveTo(i + 1);
      else this.moveTo(i);
      return true;
    }
    return false;
  }

  private consume(text: string): void {
    const cur = this.units[this.at] as Extract<Unit, { kind: 'message' }>;
    this.offset += text.length;
    if (this.offset >= cur.text.length) this.moveTo(this.at + 1);
  }
}
