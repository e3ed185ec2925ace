import { promptSummary } from '../../../shared/session-title';
import type { StopReason } from '@agentclientprotocol/sdk';
import { entryPaths, type MessagePart, type ThreadEntry, type TurnError } from '../../../shared/acp-thread';
import { clean, head, tail, uriPath, type Caps, type Detail, type Draft, type SessionState, type StoredKind, type TerminalInfo } from './entry-drafts';
import type { At, FoldSink, LoggedMessage, SessionFold } from './session-fold';
import { storedEntry } from './stored-entry';
import { exhaustive } from '../../../shared/exhaustive';

export type { LoggedMessage } from './session-fold';

export interface NewDraft {
  sessionId: string;
  seq: number;
  ts: number;
  turn: number;
  kind: StoredKind;
  ref: string | null;
  failed?: boolean;
  text?: string;
  detail?: Detail | null;
}

/** A fresh row draft (one way to build it for every backend). */
export function newDraft(init: NewDraft, id: number): Draft {
  const text = init.text ?? '';
  return {
    id,
    sessionId: init.sessionId,
    seq: init.seq,
    lastSeq: init.seq,
    ts: init.ts,
    turn: init.turn,
    kind: init.kind,
    failed: init.failed ?? false,
    ref: init.ref,
    parts: [text],
    textLength: text.length,
    detail: init.detail ?? null,
  };
}

/**
 * Where rows and per-session summaries live: the SQLite index (batched inside the message log's
 * transaction) or memory (exports).
 */
export interface HistoryBackend {
  readonly caps: Caps;
  state(sessionId: string): SessionState;
  entry(id: number): Draft | undefined;
  find(sessionId: string, kind: StoredKind, ref: string): Draft | undefined;
  create(init: NewDraft): Draft;
  /** The draft was modified (text, detail, lastSeq, failed). */
  changed(d: Draft): void;
  /** Marks every row of the session from seq on as part of a failed turn. */
  markFailed(sessionId: string, fromSeq: number): void;
  /** A session/prompt was answered (optional: the search index indexes the turn's open row then). */
  turnEnded?(sessionId: string): void;
  /** Records a path; says whether it is new to the session and whether it became edited. */
  addFile(sessionId: string, path: string, edited: boolean, seq: number): { added: boolean; nowEdited: boolean };
}

/** The fold of a session, up to date with its log before message `seq`. */
export type FoldSource = (sessionId: string, seq: number) => SessionFold;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Stop reasons that mean the turn did not do what was asked. (`cancelled` is the user's choice.) */
const FAILED_STOPS: ReadonlySet<string> = new Set(['refusal', 'max_tokens', 'max_turn_requests']);
const MAX_PATH = 2048;
const MAX_ID = 512;

/**
 * The table from thread entry kinds (src/shared/acp-thread) to the kinds of stored rows. Entry kinds
 * without a row kind of their own are kept as the shared model's entry (`entry`).
 */
export function storedKindOf(entry: ThreadEntry): StoredKind {
  switch (entry.kind) {
    case 'user_message':
      return entry.promptId !== null ? 'prompt' : 'user';
    case 'agent_message':
      return 'agent';
    case 'thought':
      return 'thought';
    case 'tool_call':
      return 'tool';
    case 'plan':
      return 'plan';
    case 'turn_error':
      return 'stop';
    case 'notice':
    case 'compaction':
    case 'elicitation':
    case 'subagent':
    case 'session_message':
      return 'entry';
    default:
      return exhaustive(entry, 'thread entry kind');
  }
}

/** Text of a content block (message chunks, tool call content). */
function blockText(block: unknown): string {
  if (!isObj(block)) return '';
  switch (block.type) {
    case 'text':
      return str(block.text) ?? '';
    case 'resource_link':
      return str(block.uri) ?? '';
    case 'resource': {
      const r = isObj(block.resource) ? block.resource : {};
      return str(r.text) ?? str(r.uri) ?? '';
    }
    default:
      return '';
  }
}

const partsText = (parts: readonly MessagePart[]): string => {
  let out = '';
  for (const p of parts) out += p.type === 'text' ? p.text : blockText(p.block);
  return out;
};

const terminalInfo = (t: { terminalId: string; output: string; truncated: boolean; exitCode: number | null; signal: string | null }, caps: Caps): TerminalInfo => {
  const output = clean(t.output);
  return { terminalId: head(t.terminalId, MAX_ID), output: tail(output, caps.output), exitCode: t.exitCode, signal: t.signal, truncated: t.truncated || output.length > caps.output };
};

const EDITING: ReadonlySet<string> = new Set(['edit', 'delete', 'move']);

/**
 * Turns a session's log into stored rows: the shared thread model folds each message (SessionFold), and
 * the entries it creates or changes become rows through storedKindOf. Shared by the search index and the
 * transcript builder. Chunk runs longer than `caps.segment` continue in a new row of the same entry, so
 * appending stays cheap and no row grows past the cap.
 */
export class HistoryRows {
  private readonly sinks = new Map<SessionState, FoldSink>();

  constructor(
    private readonly b: HistoryBackend,
    private readonly folds: FoldSource,
  ) {}

  apply(msg: LoggedMessage): void {
    this.applyRun([msg]);
  }

  /** Applies messages in log order; consecutive messages of one session are folded together. */
  applyAll(msgs: readonly LoggedMessage[]): void {
    let start = 0;
    for (let i = 1; i <= msgs.length; i++) {
      const m = msgs[i];
      const prev = msgs[i - 1]!;
      if (m && m.sessionId === prev.sessionId && m.seq === prev.seq + 1) continue;
      this.applyRun(start === 0 && i === msgs.length ? msgs : msgs.slice(start, i));
      start = i;
    }
  }

  /** Consecutive messages (by seq) of one session. */
  private applyRun(msgs: readonly LoggedMessage[]): void {
    const first = msgs[0]!;
    const st = this.b.state(first.sessionId);
    for (const msg of msgs) {
      st.messageCount += 1;
      st.firstTs ??= msg.ts;
      st.lastTs = st.lastTs === null ? msg.ts : Math.max(st.lastTs, msg.ts);
    }
    let sink = this.sinks.get(st);
    if (!sink) this.sinks.set(st, (sink = this.sink(st)));
    this.folds(first.sessionId, first.seq).applyAll(msgs, sink);
  }

  private sink(st: SessionState): FoldSink {
    const b = this.b;
    const caps = b.caps;
    const sessionId = st.sessionId;
    const closeOpen = (): void => {
      st.openEntryId = null;
      st.openKind = null;
      st.openMessageId = null;
    };
    const file = (path: string, edited: boolean, seq: number): void => {
      if (!path) return;
      const r = b.addFile(sessionId, head(path, MAX_PATH), edited, seq);
      if (r.added) st.filesTouched += 1;
      if (r.nowEdited) st.filesEdited += 1;
    };
    const create = (kind: StoredKind, ref: string | null, at: At, rest: Partial<NewDraft>): Draft => {
      st.entryCount += 1;
      return b.create({ sessionId, seq: at.seq, ts: at.ts, turn: at.turn, kind, ref, ...rest });
    };
    const upsert = (kind: StoredKind, ref: string, at: At, detail: Detail): Draft => {
      let d = b.find(sessionId, kind, ref);
      if (!d) d = create(kind, ref, at, { detail });
      else {
        d.detail = detail;
        d.lastSeq = at.seq;
        b.changed(d);
      }
      closeOpen();
      return d;
    };

    const message = (e: ThreadEntry & { parts: MessagePart[] }, kind: 'user' | 'agent' | 'thought', at: At): void => {
      const text = clean(partsText(e.parts));
      if (!text) return;
      // The open row is the usual one (a chunk extends the message being streamed): no lookup by ref.
      let open = st.openEntryId !== null && st.openKind === kind ? b.entry(st.openEntryId) : undefined;
      if (open?.ref !== e.id) open = b.find(sessionId, kind, e.id);
      if (open && open.textLength >= caps.segment) open = undefined;
      if (open) {
        open.parts.push(text);
        open.textLength += text.length;
        open.lastSeq = at.seq;
        b.changed(open);
      } else {
        if (kind === 'user') st.promptTitle ??= promptSummary(text);
        open = create(kind, e.id, at, { text });
      }
      st.openEntryId = open.id;
      st.openKind = kind;
      st.openMessageId = null;
    };

    return {
      turnStarted(at) {
        st.turn = at.turn;
        st.turnCount += 1;
        st.turnStartSeq = at.seq;
        closeOpen();
      },
      entry(e, at, fold) {
        if (e.kind === 'agent_message') return message(e, 'agent', at);
        if (e.kind === 'thought') return message(e, 'thought', at);
        if (e.kind === 'user_message' && e.promptId === null) return message(e, 'user', at);
        const kind = storedKindOf(e);
        const prior = b.find(sessionId, kind, e.id);
        // A prompt and a turn's error do not change once made.
        if (prior && (e.kind === 'user_message' || e.kind === 'turn_error')) return;
        const entry = storedEntry(e, fold.terminalsOf(e), caps);
        if (entry.kind === 'user_message') {
          const text = entry.parts.map((x) => (x.type === 'text' ? x.text : '')).filter(Boolean).join('\n');
          const names = entry.parts.map((x) => (x.type === 'block' && x.block.type === 'resource_link' ? x.block.name : '')).join('\n');
          st.promptTitle ??= promptSummary(text) ?? promptSummary(names);
          for (const p of entryPaths(entry)) file(uriPath(p), false, at.seq);
          closeOpen();
          create('prompt', e.id, at, { text, detail: { kind: 'entry', entry } });
          return;
        }
        if (entry.kind === 'turn_error') {
          closeOpen();
          create('stop', e.id, at, { failed: true, detail: { kind: 'entry', entry } });
          return;
        }
        const before = prior?.detail?.kind === 'entry' && prior.detail.entry.kind === 'tool_call' ? prior.detail.entry.status : null;
        upsert(kind, e.id, at, { kind: 'entry', entry });
        if (entry.kind !== 'tool_call') return;
        if (!prior) st.toolCallCount += 1;
        if (entry.status === 'failed' && before !== 'failed') st.failedToolCalls += 1;
        const diffPaths = new Set(entry.content.flatMap((c) => (c.type === 'diff' ? [c.path] : [])));
        for (const p of entryPaths(entry).map(uriPath)) file(p, diffPaths.has(p) || EDITING.has(entry.toolKind), at.seq);
      },
      turnEnded(turn: number, fromSeq: number, stopReason: StopReason | null, error: TurnError | null, at: At) {
        b.turnEnded?.(sessionId);
        st.lastStopReason = error ? 'error' : stopReason ? head(stopReason, 100) : null;
        const failed = Boolean(error || (stopReason && FAILED_STOPS.has(stopReason)));
        // A cancelled turn is marked too (not as a failure): the transcript shows where the user stopped it.
        if (!failed && stopReason !== 'cancelled') return;
        if (failed) {
          st.failedTurns += 1;
          b.markFailed(sessionId, fromSeq);
        }
        closeOpen();
        // An error shows as the thread's turn_error entry; a refusal, limit or cancel only here.
        if (!error) create('stop', null, { ...at, turn }, { failed, detail: { kind: 'stop', stopReason: st.lastStopReason, error: null } });
      },
      write(path, content, at) {
        const cap = caps.write;
        file(path, true, at.seq);
        closeOpen();
        create('write', null, at, { detail: { kind: 'write', path: head(path, MAX_PATH), content: clean(head(content, cap)), truncated: content.length > cap } });
      },
      terminal(t, at) {
        upsert('terminal', head(t.terminalId, MAX_ID), at, { kind: 'terminal', terminal: terminalInfo(t, caps) });
      },
      title: (title, at) => {
        st.infoTitle = title ? clean(head(title.trim(), 500)) || null : null;
        this.syncTitle(st, at);
      },
    };
  }

  /** The searchable title row: the user's name and the agent's title. */
  syncTitle(st: SessionState, at: { seq: number; ts: number }): void {
    const title = [st.customTitle, st.infoTitle].filter((t): t is string => !!t).join('\n');
    let d = this.b.find(st.sessionId, 'title', 'title');
    if (!d) {
      if (!title) return;
      d = this.b.create({ sessionId: st.sessionId, seq: at.seq, ts: at.ts, turn: 0, kind: 'title', ref: 'title', detail: { kind: 'title', title } });
    } else {
      d.detail = { kind: 'title', title };
    }
    this.b.changed(d);
  }
}
