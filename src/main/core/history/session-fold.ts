import type { StopReason } from '@agentclientprotocol/sdk';
import { updateIsValid } from '../../../shared/acp-thread/update-check';
import { applyEvents, CHUNK_UPDATE_KINDS, createThread, isFinished, partsFromContent, putIndex, WireReplayer, type ThreadEntry, type ThreadEvent, type ThreadState, type TurnError } from '../../../shared/acp-thread';

/** One logged ACP message, as history reads it. */
export interface LoggedMessage {
  sessionId: string;
  seq: number;
  ts: number;
  direction: 'c2a' | 'a2c';
  body: string;
  /** `body` already parsed (not modified here). */
  parsed?: unknown;
}

/** Output of a terminal the client ran for the agent (terminal/output answers), as last reported. */
export interface ClientTerminal {
  terminalId: string;
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
}

/** Where a message happened: what rows made from it record. */
export interface At {
  seq: number;
  ts: number;
  turn: number;
}

/**
 * What the fold tells about each message: the thread entries it created or changed (as the shared thread
 * model folded them), and the few things of the log that are not thread entries (file writes, output of
 * the client's terminals, turn outcomes, the title).
 */
export interface FoldSink {
  /** A prompt (or, in a replayed conversation, a user message) started turn `at.turn`. */
  turnStarted(at: At): void;
  /**
   * An entry was created or changed. A message entry holds only the parts that arrived since the last
   * call for it (what came before was handed out already).
   */
  entry(entry: ThreadEntry, at: At, fold: SessionFold): void;
  turnEnded(turn: number, fromSeq: number, stopReason: StopReason | null, error: TurnError | null, at: At): void;
  write(path: string, content: string, at: At): void;
  /** Output of a client terminal no tool call shows. */
  terminal(terminal: ClientTerminal, at: At): void;
  title(title: string | null, at: At): void;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const rpcKey = (id: unknown): string | null => (typeof id === 'string' ? `s:${id}` : typeof id === 'number' && Number.isFinite(id) ? `n:${id}` : null);
const isMessage = (e: ThreadEntry): boolean => e.kind === 'user_message' || e.kind === 'agent_message' || e.kind === 'thought';

function parse(msg: LoggedMessage): Obj | null {
  let m: unknown = msg.parsed;
  if (m === undefined) {
    try {
      m = JSON.parse(msg.body);
    } catch {
      return null;
    }
  }
  return isObj(m) ? m : null;
}

interface Chunk {
  msg: LoggedMessage;
  event: ThreadEvent;
  content: unknown;
}

/** Keep the whole thread in memory below this many entries; above it, only what can still change. */
const COMPACT_AT = 16;

/**
 * One session's thread, folded from its log by the shared thread model (src/shared/acp-thread): the same
 * replay as a restored session, so history reads update kinds only through that model's table. It keeps
 * only what can still change (the last entry, tool calls by id, the current turn's plan), and message
 * entries without the text already handed out, so it stays small however long the session is; it can be
 * rebuilt at any time by folding the session's log again.
 */
export class SessionFold {
  private thread: ThreadState = createThread();
  private readonly replayer = new WireReplayer([], updateIsValid);
  /** During a session/load: 'index' the replayed conversation (the session had none), or 'skip' it. */
  private replay: 'index' | 'skip' | null = null;
  private loadKey: string | null = null;
  private turn = 0;
  private readonly prompts = new Map<string, { turn: number; seq: number }>();
  private readonly terminalRequests = new Map<string, string>();
  private readonly terminals = new Map<string, ClientTerminal>();
  private title: string | null = null;
  /** Finished tool calls of earlier turns, out of the thread until an update names them again. */
  private readonly parked = new Map<string, ThreadEntry>();
  /** Entries kept by the last compaction: the next one waits until the thread has grown as much again. */
  private kept = 0;
  /** Seq of the last message folded. */
  lastSeq = 0;

  /** Client terminals the tool call shows (its `terminal` content), with their last output. */
  terminalsOf(entry: ThreadEntry): ClientTerminal[] {
    if (entry.kind !== 'tool_call') return [];
    const out: ClientTerminal[] = [];
    for (const c of entry.content) {
      if (c.type !== 'terminal' || typeof c.terminalId !== 'string') continue;
      out.push(this.terminals.get(c.terminalId) ?? { terminalId: c.terminalId, output: '', truncated: false, exitCode: null, signal: null });
    }
    return out;
  }

  /** Folds one message; `sink` null only brings the fold up to date (rebuilding it from the log). */
  apply(msg: LoggedMessage, sink: FoldSink | null): void {
    this.applyAll([msg], sink);
  }

  /**
   * Folds consecutive messages of this session, in log order. A run of message chunks is folded by the
   * thread model in one batch (a flood is thousands of them); the sink still hears of each message.
   */
  applyAll(msgs: readonly LoggedMessage[], sink: FoldSink | null): void {
    let run: Chunk[] = [];
    for (const msg of msgs) {
      const m = parse(msg);
      const chunk = m === null ? null : this.chunkOf(msg, m);
      if (chunk) {
        run.push(chunk);
        continue;
      }
      if (run.length > 0) this.foldChunks(run, sink);
      run = [];
      this.foldOne(msg, m, sink);
    }
    if (run.length > 0) this.foldChunks(run, sink);
  }

  /** A message chunk (a session/update notification the replay folds as it is), or null for anything else. */
  private chunkOf(msg: LoggedMessage, m: Obj): Chunk | null {
    if (msg.direction !== 'a2c' || m.method !== 'session/update' || rpcKey(m.id) !== null || this.replay !== null) return null;
    const update = isObj(m.params) && isObj(m.params.update) ? m.params.update : null;
    if (!update || !CHUNK_UPDATE_KINDS.has(update.sessionUpdate as string)) return null;
    const events = this.replayer.push({ direction: msg.direction, body: m });
    return events.length === 1 ? { msg, event: events[0]!, content: update.content } : null;
  }

  /**
   * Folds a run of chunks in one batch when they all extend the last entry (the entry count stays), and
   * hands each message's own part to the sink as folding it alone would; otherwise one message at a time.
   */
  private foldChunks(run: readonly Chunk[], sink: FoldSink | null): void {
    // A miss is a chunk in the run starting a new message: fold one at a time, and try the rest as a batch
    // again each time one started a message (what follows usually extends it), a few times per run.
    let attempts = 4;
    let retry = true;
    for (let i = 0; i < run.length; i++) {
      if (retry && attempts-- > 0 && this.foldBatch(i === 0 ? run : run.slice(i), sink)) return;
      const n = this.thread.entries.length;
      this.fold(run[i]!.msg, [run[i]!.event], null, sink);
      retry = this.thread.entries.length !== n;
    }
  }

  private foldBatch(run: readonly Chunk[], sink: FoldSink | null): boolean {
    const before = this.thread;
    const n = before.entries.length;
    if (run.length < 2 || n === 0) return false;
    const after = applyEvents(before, run.map((c) => c.event));
    const last = after.entries[n - 1]!;
    if (after.entries.length !== n || !isMessage(last)) return false;
    this.thread = after;
    this.lastSeq = run[run.length - 1]!.msg.seq;
    if (last !== before.entries[n - 1]) {
      for (const c of run) {
        // What the model appended for this chunk alone (the parts already handed out were let go).
        const parts = partsFromContent([c.content as never]);
        if (parts.length === 0) continue;
        (last as { parts: unknown[] }).parts = parts;
        sink?.entry(last, this.at(c.msg), this);
      }
    }
    this.compact([n - 1]);
    return true;
  }

  private foldOne(msg: LoggedMessage, m: Obj | null, sink: FoldSink | null): void {
    this.lastSeq = msg.seq;
    if (m === null) return;
    const method = str(m.method);
    const key = rpcKey(m.id);
    const params = isObj(m.params) ? m.params : {};
    let loadEnded = false;
    let terminal: ClientTerminal | null = null;
    if (method !== null && msg.direction === 'c2a' && method === 'session/load' && key !== null) {
      this.loadKey = key;
      // A load replays the conversation as updates: keep it only if this session has none yet.
      this.replay = this.thread.nextId > 1 ? 'skip' : 'index';
    } else if (method !== null && msg.direction === 'a2c') {
      if (method === 'fs/write_text_file') {
        const path = str(params.path);
        if (path) sink?.write(path, str(params.content) ?? '', this.at(msg));
      } else if (method === 'terminal/output' && key !== null && str(params.terminalId)) {
        this.terminalRequests.set(key, str(params.terminalId)!);
      }
    } else if (method === null && key !== null) {
      if (msg.direction === 'a2c' && key === this.loadKey) loadEnded = true;
      const terminalId = msg.direction === 'c2a' ? this.terminalRequests.get(key) : undefined;
      if (terminalId !== undefined) {
        this.terminalRequests.delete(key);
        if (isObj(m.result)) terminal = this.terminalOutput(terminalId, m.result);
      }
    }

    let events: ThreadEvent[] = this.replayer.push({ direction: msg.direction, body: m });
    if (this.replay === 'skip') events = events.filter((e) => e.type !== 'update');
    if (loadEnded) {
      this.replay = null;
      this.loadKey = null;
    }
    this.fold(msg, events, terminal, sink);
  }

  private fold(msg: LoggedMessage, events: ThreadEvent[], terminal: ClientTerminal | null, sink: FoldSink | null): void {
    this.lastSeq = msg.seq;
    if (events.length === 0 && terminal === null) return;

    this.unpark(events);
    const before = this.thread;
    for (const e of events) {
      if (e.type === 'prompt') {
        this.turn += 1;
        this.prompts.set(e.promptId, { turn: this.turn, seq: msg.seq });
        sink?.turnStarted(this.at(msg));
      } else if (e.type === 'turn_end') {
        const p = (e.promptId !== null ? this.prompts.get(e.promptId) : undefined) ?? { turn: this.turn, seq: msg.seq };
        if (e.promptId !== null) this.prompts.delete(e.promptId);
        sink?.turnEnded(p.turn, p.seq, e.stopReason, e.error, this.at(msg));
      }
    }
    // What the events added or replaced (the fold's thread holds all its entries: indices are positions).
    const touched: number[] = [];
    this.thread = applyEvents(before, events, undefined, touched);
    const entries = this.thread.entries;
    let linked = false;
    for (const i of touched) {
      const entry = entries[i]!;
      if (this.replay === 'index' && entry.kind === 'user_message' && entry.promptId === null && i >= before.entries.length) {
        // A replayed conversation has no prompts: each user message starts a turn.
        this.turn += 1;
        sink?.turnStarted(this.at(msg));
      }
      sink?.entry(entry, this.at(msg), this);
    }
    if (terminal) {
      const id = terminal.terminalId;
      for (const entry of entries) {
        if (entry.kind !== 'tool_call' || !entry.content.some((c) => c.type === 'terminal' && c.terminalId === id)) continue;
        linked = true;
        sink?.entry(entry, this.at(msg), this);
      }
      if (!linked) sink?.terminal(terminal, this.at(msg));
    }
    if (this.thread.title !== this.title) {
      this.title = this.thread.title;
      sink?.title(this.title, this.at(msg));
    }
    this.compact(touched);
  }

  private at(msg: LoggedMessage): At {
    return { seq: msg.seq, ts: msg.ts, turn: this.turn };
  }

  /** Puts parked tool calls that these events name back into the thread. */
  private unpark(events: readonly ThreadEvent[]): void {
    if (this.parked.size === 0) return;
    for (const e of events) {
      const u = e.type === 'update' ? (e.update as unknown as Obj) : e.type === 'permission' ? (e.toolCall as unknown as Obj) : null;
      const id = u ? str(u.toolCallId) : null;
      const entry = id !== null ? this.parked.get(id) : undefined;
      if (id === null || !entry) continue;
      this.parked.delete(id);
      this.thread = { ...this.thread, entries: [...this.thread.entries, entry], toolIndex: { ...this.thread.toolIndex, [id]: this.thread.entries.length } };
    }
  }

  private terminalOutput(terminalId: string, result: Obj): ClientTerminal {
    const exit = isObj(result.exitStatus) ? result.exitStatus : null;
    const prior = this.terminals.get(terminalId);
    const t: ClientTerminal = {
      terminalId,
      output: str(result.output) ?? '',
      truncated: result.truncated === true,
      exitCode: exit ? num(exit.exitCode) : (prior?.exitCode ?? null),
      signal: exit ? str(exit.signal) : (prior?.signal ?? null),
    };
    this.terminals.set(terminalId, t);
    return t;
  }

  /**
   * Lets go of what was handed out and can no longer change: the text of messages, and entries before the
   * last one that no event can reach any more (the thread model changes only the last entry, tool calls by
   * id and the current turn's plan).
   */
  private compact(touched: readonly number[]): void {
    const entries = this.thread.entries;
    // This fold is the only holder of its states, so they may change in place.
    for (const i of touched) {
      const e = entries[i]!;
      if (isMessage(e)) (e as { parts: unknown[] }).parts = [];
    }
    if (entries.length >= Math.max(COMPACT_AT, 2 * this.kept)) {
      const start = this.thread.turn.startIndex;
      let lastUser = -1;
      for (let i = entries.length - 1; i >= start; i--) {
        if (entries[i]!.kind === 'user_message') {
          lastUser = i;
          break;
        }
      }
      const kept: ThreadEntry[] = [];
      const toolIndex: Record<string, number> = {};
      let newStart = 0;
      entries.forEach((e, i) => {
        if (i === start) newStart = kept.length;
        if (e.kind === 'tool_call' && i < start && i !== entries.length - 1 && isFinished(e.status) && !e.permission) {
          this.parked.set(e.toolCallId, e);
          return;
        }
        const keep =
          e.kind === 'tool_call' ||
          i === entries.length - 1 ||
          i === lastUser ||
          (e.kind === 'plan' && i >= Math.max(start, lastUser)) ||
          // Its answer is still to come.
          (e.kind === 'elicitation' && e.state === 'pending');
        if (!keep) return;
        if (e.kind === 'tool_call') putIndex(toolIndex, e.toolCallId, kept.length);
        kept.push(e);
      });
      if (start >= entries.length) newStart = kept.length;
      this.kept = kept.length;
      this.thread = { ...this.thread, entries: kept, toolIndex, turn: { ...this.thread.turn, startIndex: newStart } };
    }
  }
}
