import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { applyEvent, createThread, entryKindOf } from '../../../shared/acp-thread';
import type { PromptBlock, ToolCallInfo } from '../../../shared/contract/history';
import { clean, head, tail, uriPath, type Caps, type Detail, type Draft, type PlanItem, type SessionState, type StoredKind, type TerminalInfo } from './model';

/** One logged ACP message, as the reducer needs it. */
export interface LoggedMessage {
  sessionId: string;
  seq: number;
  ts: number;
  direction: 'c2a' | 'a2c';
  body: string;
  /** `body` already parsed (not modified here). */
  parsed?: unknown;
}

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

/** A fresh entry draft (one way to build it for every backend). */
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
 * Where the reducer keeps entries and per-session state: the SQLite index (batched inside the message log's
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
  /** Marks every entry of the session from seq on as part of a failed turn. */
  markFailed(sessionId: string, fromSeq: number): void;
  rpcTrack(sessionId: string, dir: 'c2a' | 'a2c', rpcId: string, method: string, data: string | null): void;
  rpcTake(sessionId: string, dir: 'c2a' | 'a2c', rpcId: string): { method: string; data: string | null } | undefined;
  terminalLink(sessionId: string, terminalId: string, entryId: number): void;
  terminalEntry(sessionId: string, terminalId: string): number | undefined;
  /** A session/prompt was answered (optional: the search index indexes the turn's open entry then). */
  turnEnded?(sessionId: string): void;
  /** Records a path; says whether it is new to the session and whether it became edited. */
  addFile(sessionId: string, path: string, edited: boolean, seq: number): { added: boolean; nowEdited: boolean };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Stop reasons that mean the turn did not do what was asked. (`cancelled` is the user's choice.) */
const FAILED_STOPS = new Set(['refusal', 'max_tokens', 'max_turn_requests']);
const MAX_PATH = 2048;
const MAX_ID = 512;

const rpcKey = (id: unknown): string | null => {
  if (typeof id === 'string') return `s:${id.slice(0, MAX_ID)}`;
  if (typeof id === 'number' && Number.isFinite(id)) return `n:${id}`;
  return null;
};

/** First non-empty line, whitespace collapsed, at most 120 characters. */
export function firstLine(text: string): string | null {
  for (const line of text.split('\n')) {
    const t = line.replace(/\s+/g, ' ').trim();
    if (t) return t.length > 120 ? `${head(t, 119)}…` : t;
  }
  return null;
}

/** Text of content blocks (message chunks, tool call content). */
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

function promptBlocks(prompt: unknown[], caps: Caps): PromptBlock[] {
  const out: PromptBlock[] = [];
  for (const b of prompt) {
    if (!isObj(b)) continue;
    const type = str(b.type) ?? 'unknown';
    if (type === 'text') out.push({ type: 'text', text: clean(str(b.text) ?? '') });
    else if (type === 'resource_link') {
      const uri = str(b.uri) ?? '';
      out.push({ type: 'resource_link', uri: head(uri, MAX_PATH), name: clean(str(b.name) ?? uri) });
    } else if (type === 'resource') {
      const r = isObj(b.resource) ? b.resource : {};
      const text = str(r.text);
      out.push({
        type: 'resource',
        uri: head(str(r.uri) ?? '', MAX_PATH),
        text: text === null ? null : clean(head(text, caps.resource)),
        truncated: text !== null && text.length > caps.resource,
      });
    } else if (type === 'image') out.push({ type: 'image', mimeType: str(b.mimeType) ?? '', uri: str(b.uri) });
    else out.push({ type: 'other', blockType: head(type, 100) });
  }
  return out;
}

/** rawOutput comes as a string, content blocks, or an object ({stdout, stderr}, {output}…). */
function rawOutputText(v: unknown, cap: number): string | null {
  if (v === undefined || v === null) return null;
  let s: string;
  if (typeof v === 'string') s = v;
  else if (Array.isArray(v)) s = v.map(blockText).filter(Boolean).join('\n');
  else if (isObj(v)) {
    const parts = ['output', 'stdout', 'stderr', 'result', 'content'].map((k) => v[k]).filter((x): x is string => typeof x === 'string' && x.length > 0);
    s = parts.length ? parts.join('\n') : JSON.stringify(v);
  } else s = String(v);
  return s ? clean(head(s, cap)) : null;
}

const emptyTool = (id: string): ToolCallInfo => ({
  toolCallId: id,
  title: '',
  kind: 'other',
  status: 'pending',
  paths: [],
  text: '',
  diffs: [],
  terminals: [],
  rawInput: null,
  rawOutput: null,
});

function terminalOf(t: ToolCallInfo, terminalId: string): TerminalInfo {
  let term = t.terminals.find((x) => x.terminalId === terminalId);
  if (!term) {
    term = { terminalId, output: '', exitCode: null, signal: null, truncated: false };
    t.terminals.push(term);
  }
  return term;
}

/**
 * Applies ACP messages, in log order, to entries and session state. Shared by the search index and the
 * transcript builder so both read the protocol the same way. Agent data is untrusted: every field is
 * checked, and a message that does not parse is only counted.
 */
export class HistoryReducer {
  constructor(private readonly b: HistoryBackend) {}

  apply(msg: LoggedMessage): void {
    const st = this.b.state(msg.sessionId);
    st.messageCount += 1;
    st.firstTs ??= msg.ts;
    st.lastTs = st.lastTs === null ? msg.ts : Math.max(st.lastTs, msg.ts);
    let m: unknown = msg.parsed;
    if (m === undefined) {
      try {
        m = JSON.parse(msg.body);
      } catch {
        return;
      }
    }
    if (!isObj(m)) return;
    const method = str(m.method);
    const params = isObj(m.params) ? m.params : {};
    if (method !== null) {
      const key = rpcKey(m.id);
      if (key !== null) this.request(st, msg, method, params, key);
      else this.notification(st, msg, method, params);
    } else {
      const key = rpcKey(m.id);
      if (key === null) return;
      const requestDir = msg.direction === 'c2a' ? 'a2c' : 'c2a';
      const req = this.b.rpcTake(msg.sessionId, requestDir, key);
      if (req) this.response(st, msg, req, m);
    }
  }

  private request(st: SessionState, msg: LoggedMessage, method: string, params: Obj, key: string): void {
    if (msg.direction === 'c2a') {
      if (method === 'session/prompt') this.prompt(st, msg, params, key);
      else if (method === 'session/load') {
        this.b.rpcTrack(st.sessionId, 'c2a', key, method, null);
        // A load replays the conversation as updates: index it only if this session has no entries yet.
        st.replay = st.entryCount > 0 ? 2 : 1;
      }
      return;
    }
    if (method === 'fs/write_text_file') this.write(st, msg, params);
    else if (method === 'terminal/output') {
      const terminalId = str(params.terminalId);
      if (terminalId) this.b.rpcTrack(st.sessionId, 'a2c', key, method, head(terminalId, MAX_ID));
    }
  }

  private notification(st: SessionState, msg: LoggedMessage, method: string, params: Obj): void {
    if (method !== 'session/update' || msg.direction !== 'a2c' || st.replay === 2) return;
    const u = isObj(params.update) ? params.update : null;
    if (!u) return;
    // Update kinds are read through the thread model's table: what an update shows as decides its entry.
    switch (entryKindOf(u.sessionUpdate)) {
      case 'agent_message':
        return this.chunk(st, msg, 'agent', u);
      case 'user_message':
        return this.chunk(st, msg, 'user', u);
      case 'thought':
        return this.chunk(st, msg, 'thought', u);
      case 'tool_call':
        return this.tool(st, msg, u);
      case 'plan':
        return this.plan(st, msg, u);
      case null:
        if (u.sessionUpdate === 'session_info_update' && 'title' in u) {
          st.infoTitle = str(u.title) ? clean(head(str(u.title)!.trim(), 500)) || null : null;
          this.syncTitle(st, msg);
        }
        return;
      default:
        return this.threadEntry(st, msg, u);
    }
  }

  /**
   * Any other entry kind (notices, and kinds added later) is folded by the shared thread model itself, on a
   * thread holding only the open entry, and kept as that model's entry: no second reducer for it here.
   */
  private threadEntry(st: SessionState, msg: LoggedMessage, u: Obj): void {
    const open = st.openEntryId !== null && st.openKind === 'entry' ? this.b.entry(st.openEntryId) : undefined;
    const prior = open?.detail?.kind === 'entry' ? open.detail.entry : null;
    const thread = applyEvent({ ...createThread(), entries: prior ? [prior] : [] }, { type: 'update', update: u as unknown as SessionUpdate });
    thread.entries.forEach((entry, i) => {
      if (i === 0 && prior && open) {
        if (entry !== prior) {
          open.detail = { kind: 'entry', entry };
          open.lastSeq = msg.seq;
          this.b.changed(open);
        }
        return;
      }
      this.closeOpen(st);
      st.entryCount += 1;
      const d = this.b.create({ sessionId: st.sessionId, seq: msg.seq, ts: msg.ts, turn: st.turn, kind: 'entry', ref: null, detail: { kind: 'entry', entry } });
      st.openEntryId = d.id;
      st.openKind = 'entry';
    });
  }

  private response(st: SessionState, msg: LoggedMessage, req: { method: string; data: string | null }, m: Obj): void {
    const result = isObj(m.result) ? m.result : null;
    if (req.method === 'session/load') {
      st.replay = 0;
      return;
    }
    if (req.method === 'terminal/output') {
      if (result && req.data) this.terminalOutput(st, msg, req.data, result);
      return;
    }
    if (req.method !== 'session/prompt') return;
    this.b.turnEnded?.(st.sessionId);
    const [turnText, seqText] = (req.data ?? '').split(':');
    const turn = Number(turnText) || st.turn;
    const fromSeq = Number(seqText) || st.turnStartSeq;
    let stopReason: string | null = null;
    let error: { code: number | null; message: string } | null = null;
    if (isObj(m.error)) {
      const e = m.error;
      const data = isObj(e.data) ? str(e.data.details) ?? str(e.data.message) : str(e.data);
      error = { code: num(e.code), message: clean(head([str(e.message) ?? 'error', data].filter(Boolean).join(': '), 4096)) };
      stopReason = 'error';
    } else if (result) {
      stopReason = str(result.stopReason) ? head(str(result.stopReason)!, 100) : null;
    }
    st.lastStopReason = stopReason;
    const failed = Boolean(error || (stopReason && FAILED_STOPS.has(stopReason)));
    // A cancelled turn is marked too (not as a failure): the transcript shows where the user stopped it.
    if (failed || stopReason === 'cancelled') {
      if (failed) {
        st.failedTurns += 1;
        this.b.markFailed(st.sessionId, fromSeq);
      }
      this.closeOpen(st);
      st.entryCount += 1;
      this.b.create({
        sessionId: st.sessionId,
        seq: msg.seq,
        ts: msg.ts,
        turn,
        kind: 'stop',
        ref: null,
        failed,
        detail: { kind: 'stop', stopReason: error ? null : stopReason, error },
      });
    }
  }

  private closeOpen(st: SessionState): void {
    st.openEntryId = null;
    st.openKind = null;
    st.openMessageId = null;
  }

  private prompt(st: SessionState, msg: LoggedMessage, params: Obj, key: string): void {
    const blocks = promptBlocks(arr(params.prompt), this.b.caps);
    st.turn += 1;
    st.turnCount += 1;
    st.turnStartSeq = msg.seq;
    this.b.rpcTrack(st.sessionId, 'c2a', key, 'session/prompt', `${st.turn}:${msg.seq}`);
    this.closeOpen(st);
    const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).filter(Boolean).join('\n');
    st.promptTitle ??= firstLine(text) ?? firstLine(blocks.map((b) => (b.type === 'resource_link' ? b.name : '')).join('\n'));
    for (const b of blocks) {
      if (b.type === 'resource_link' || b.type === 'resource') this.file(st, uriPath(b.uri), false, msg.seq);
    }
    st.entryCount += 1;
    this.b.create({
      sessionId: st.sessionId,
      seq: msg.seq,
      ts: msg.ts,
      turn: st.turn,
      kind: 'prompt',
      ref: null,
      text,
      detail: { kind: 'prompt', blocks },
    });
  }

  private chunk(st: SessionState, msg: LoggedMessage, kind: 'agent' | 'user' | 'thought', u: Obj): void {
    const text = clean(blockText(u.content));
    if (!text) return;
    const messageId = str(u.messageId);
    let open = st.openEntryId !== null && st.openKind === kind ? this.b.entry(st.openEntryId) : undefined;
    if (open && messageId !== null && st.openMessageId !== null && messageId !== st.openMessageId) open = undefined;
    if (open && open.textLength >= this.b.caps.segment) open = undefined;
    if (open) {
      open.parts.push(text);
      open.textLength += text.length;
      open.lastSeq = msg.seq;
      this.b.changed(open);
      return;
    }
    if (kind === 'user' && st.replay === 1) {
      // A replayed conversation has no prompts: each user message starts a turn.
      st.turn += 1;
      st.turnCount += 1;
      st.turnStartSeq = msg.seq;
      st.promptTitle ??= firstLine(text);
    }
    st.entryCount += 1;
    const d = this.b.create({ sessionId: st.sessionId, seq: msg.seq, ts: msg.ts, turn: st.turn, kind, ref: null, text });
    st.openEntryId = d.id;
    st.openKind = kind;
    st.openMessageId = messageId === null ? null : head(messageId, MAX_ID);
  }

  private file(st: SessionState, path: string, edited: boolean, seq: number): void {
    if (!path) return;
    const r = this.b.addFile(st.sessionId, head(path, MAX_PATH), edited, seq);
    if (r.added) st.filesTouched += 1;
    if (r.nowEdited) st.filesEdited += 1;
  }

  private tool(st: SessionState, msg: LoggedMessage, u: Obj): void {
    const id = str(u.toolCallId);
    if (!id) return;
    const ref = head(id, MAX_ID);
    const caps = this.b.caps;
    let d = this.b.find(st.sessionId, 'tool', ref);
    if (!d) {
      st.toolCallCount += 1;
      st.entryCount += 1;
      d = this.b.create({ sessionId: st.sessionId, seq: msg.seq, ts: msg.ts, turn: st.turn, kind: 'tool', ref, detail: { kind: 'tool', tool: emptyTool(ref) } });
    }
    if (d.detail?.kind !== 'tool') return;
    const t = d.detail.tool;
    const before = t.status;
    if (str(u.title) !== null) t.title = clean(head(str(u.title)!, 1000));
    if (str(u.kind)) t.kind = head(str(u.kind)!, 50);
    if (str(u.status)) t.status = head(str(u.status)!, 50);
    const editing = t.kind === 'edit' || t.kind === 'delete' || t.kind === 'move';
    if (Array.isArray(u.locations)) {
      const paths: string[] = [];
      for (const l of u.locations) {
        const p = isObj(l) ? str(l.path) : null;
        if (p) paths.push(head(p, MAX_PATH));
      }
      t.paths = [...new Set([...t.paths, ...paths])];
      for (const p of paths) this.file(st, p, editing, msg.seq);
    }
    if (Array.isArray(u.content)) {
      const texts: string[] = [];
      const diffs: ToolCallInfo['diffs'] = [];
      for (const c of u.content) {
        if (!isObj(c)) continue;
        if (c.type === 'content') {
          const s = blockText(c.content);
          if (s) texts.push(s);
        } else if (c.type === 'diff') {
          const path = head(str(c.path) ?? '', MAX_PATH);
          const oldText = str(c.oldText);
          const newText = str(c.newText) ?? '';
          diffs.push({
            path,
            oldText: oldText === null ? null : clean(head(oldText, caps.diff)),
            newText: clean(head(newText, caps.diff)),
            truncated: (oldText?.length ?? 0) > caps.diff || newText.length > caps.diff,
          });
          if (path) {
            if (!t.paths.includes(path)) t.paths.push(path);
            this.file(st, path, true, msg.seq);
          }
        } else if (c.type === 'terminal') {
          const terminalId = str(c.terminalId);
          if (terminalId) {
            terminalOf(t, head(terminalId, MAX_ID));
            this.b.terminalLink(st.sessionId, head(terminalId, MAX_ID), d.id);
          }
        }
      }
      const text = texts.join('\n');
      t.text = clean(head(text, caps.text));
      // Content replaced without a diff keeps the last diff, marked as such (the thread shows it labelled).
      t.diffs = diffs.length === 0 && t.diffs.length > 0 ? t.diffs.map((x) => ({ ...x, replaced: true })) : diffs;
    }
    if ('rawInput' in u && isObj(u.rawInput) && Object.keys(u.rawInput).length > 0) {
      t.rawInput = clean(head(JSON.stringify(u.rawInput), caps.rawInput));
    }
    if ('rawOutput' in u) {
      const out = rawOutputText(u.rawOutput, caps.rawOutput);
      if (out !== null) t.rawOutput = out;
    }
    // Claude sends terminal output of its own terminals in _meta (clients that declare terminal_output).
    const meta = isObj(u._meta) ? u._meta : null;
    if (meta && isObj(meta.terminal_output)) {
      const terminalId = str(meta.terminal_output.terminal_id);
      const data = str(meta.terminal_output.data);
      if (terminalId && data) {
        const term = terminalOf(t, head(terminalId, MAX_ID));
        const all = term.output + clean(data);
        term.truncated ||= all.length > caps.output;
        term.output = tail(all, caps.output);
      }
    }
    if (meta && isObj(meta.terminal_exit)) {
      const terminalId = str(meta.terminal_exit.terminal_id);
      if (terminalId) {
        const term = terminalOf(t, head(terminalId, MAX_ID));
        term.exitCode = num(meta.terminal_exit.exit_code);
        term.signal = str(meta.terminal_exit.signal);
      }
    }
    if (t.status === 'failed' && before !== 'failed') st.failedToolCalls += 1;
    d.lastSeq = msg.seq;
    this.b.changed(d);
    this.closeOpen(st);
  }

  private terminalOutput(st: SessionState, msg: LoggedMessage, terminalId: string, result: Obj): void {
    const output = clean(str(result.output) ?? '');
    const exit = isObj(result.exitStatus) ? result.exitStatus : null;
    const caps = this.b.caps;
    const update = (term: TerminalInfo): void => {
      term.output = tail(output, caps.output);
      term.truncated = result.truncated === true || output.length > caps.output;
      if (exit) {
        term.exitCode = num(exit.exitCode);
        term.signal = str(exit.signal);
      }
    };
    const linked = this.b.terminalEntry(st.sessionId, terminalId);
    const toolDraft = linked === undefined ? undefined : this.b.entry(linked);
    if (toolDraft?.detail?.kind === 'tool') {
      update(terminalOf(toolDraft.detail.tool, terminalId));
      toolDraft.lastSeq = msg.seq;
      this.b.changed(toolDraft);
      return;
    }
    let d = this.b.find(st.sessionId, 'terminal', terminalId);
    if (!d) {
      st.entryCount += 1;
      d = this.b.create({
        sessionId: st.sessionId,
        seq: msg.seq,
        ts: msg.ts,
        turn: st.turn,
        kind: 'terminal',
        ref: terminalId,
        detail: { kind: 'terminal', terminal: { terminalId, output: '', exitCode: null, signal: null, truncated: false } },
      });
      this.closeOpen(st);
    }
    if (d.detail?.kind !== 'terminal') return;
    update(d.detail.terminal);
    d.lastSeq = msg.seq;
    this.b.changed(d);
  }

  private write(st: SessionState, msg: LoggedMessage, params: Obj): void {
    const path = str(params.path);
    if (!path) return;
    const content = str(params.content) ?? '';
    const cap = this.b.caps.write;
    this.file(st, path, true, msg.seq);
    this.closeOpen(st);
    st.entryCount += 1;
    this.b.create({
      sessionId: st.sessionId,
      seq: msg.seq,
      ts: msg.ts,
      turn: st.turn,
      kind: 'write',
      ref: null,
      detail: { kind: 'write', path: head(path, MAX_PATH), content: clean(head(content, cap)), truncated: content.length > cap },
    });
  }

  private plan(st: SessionState, msg: LoggedMessage, u: Obj): void {
    const entries: PlanItem[] = [];
    for (const e of arr(u.entries)) {
      if (!isObj(e)) continue;
      entries.push({
        content: clean(head(str(e.content) ?? '', 2000)),
        status: head(str(e.status) ?? '', 50),
        priority: head(str(e.priority) ?? '', 50),
      });
    }
    const ref = `plan:${st.turn}`;
    let d = this.b.find(st.sessionId, 'plan', ref);
    if (!d) {
      st.entryCount += 1;
      d = this.b.create({ sessionId: st.sessionId, seq: msg.seq, ts: msg.ts, turn: st.turn, kind: 'plan', ref, detail: { kind: 'plan', entries } });
    } else {
      d.detail = { kind: 'plan', entries };
    }
    d.lastSeq = msg.seq;
    this.b.changed(d);
    this.closeOpen(st);
  }

  /** The searchable title entry: the user's name and the agent's title. */
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
