import { storedLine } from '../../store/stored-secrets';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { WarningKind } from './warnings';
import type { AgentLog } from './agent-log';
import { HeldUpdates, notStoredYet } from './held-updates';
import { LineSplitter, type SplitItem } from './line-splitter';
import type { LogEntry, LogSource, MessageLog, PersistedMessage } from '../../store/message-log';
import { ReplayMatcher, type ThreadState } from '../../../../shared/acp-thread';

type JsonRpcId = string | number;

export interface WireHooks {
  /** The live Switchboard session bound to an ACP session id. */
  sessionOf(acpSessionId: string): string | undefined;
  /** An ACP session id answered to session/new (or load/resume) for a Switchboard session. */
  bindSession(acpSessionId: string, sessionId: string): void;
  /** A run of consecutive `session/update` notifications of one session, persisted, in wire order. */
  onUpdates(sessionId: string, items: UpdateItem[]): void;
  onWarning(sessionId: string | null, kind: WarningKind, message: string): void;
  /**
   * A `subagent_update` of session `sessionId` names a child ACP session not bound yet: the child session is
   * opened and bound now, before the lines after this one (the child's own updates) are routed.
   */
  announceChild?(sessionId: string, childAcpSessionId: string): void;
  /**
   * Output read but not handed on yet reached READ_AHEAD_BYTES (true: stop reading the agent's stdout), or
   * was all handed on (false: read again).
   */
  readAhead?(full: boolean): void;
}

/**
 * At most this much of an agent's output is read ahead of what has been handed on. A flood then waits in the
 * agent's pipe, not in this process: what the agent writes last is shown soon after it writes it, and
 * memory stays bounded however fast the agent writes.
 */
export const READ_AHEAD_BYTES = 256 * 1024;

export interface UpdateItem {
  params: Record<string, unknown>;
  seq: number | null;
}

export interface WireTransport {
  write(data: string): Promise<void>;
  /** Writes now or never (see HostProcess.writeNowOrNever). Absent: as `write`. */
  writeNowOrNever?(data: string): void;
}

interface Pending {
  method: string;
  sessionId: string | null;
}

/** What a line turned into, before its chunk is stored and handed on. */
type Prepared = (
  | { kind: 'update'; sessionId: string; params: Record<string, unknown> }
  | { kind: 'sdk'; message: AnyMessage }
  | { kind: 'warning'; sessionId: string | null; warning: WarningKind; message: string }
) & { entry?: LogEntry | null };

/** Lines prepared for one write: what to hand on, and the log entries of those that belong to a session. */
interface Collected {
  prepared: Prepared[];
  entries: LogEntry[];
  /** prepared index → entries index */
  entryIndex: number[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is JsonRpcId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
/** Map key keeping 1 and "1" apart (JSON-RPC ids of both types are valid and distinct). */
const idKey = (id: JsonRpcId): string => (typeof id === 'string' ? `s${id}` : `n${id}`);

/**
 * The tap between an agent's transport (its process's stdio) and the SDK connection. Every message, both directions, is
 * appended to the MessageLog in wire order (session messages) or to the agent log (sessionless ones:
 * initialize, authenticate…). Incoming messages are handed on only after their batch is committed:
 * `session/update` notifications go straight to the session (validated there, not by the SDK), the rest
 * to the SDK connection. Lines are split with a bounded buffer; malformed and oversized lines are
 * reported as warnings and skipped.
 */
/** Requests whose answer names a new ACP session (logged as the new Switchboard session's, see expectNewSession). */
const CREATES_SESSION: ReadonlySet<string> = new Set(['session/new', 'session/fork']);

export class AcpWire implements LogSource {
  readonly stream: Stream;
  private controller: ReadableStreamDefaultController<AnyMessage> | null = null;
  private readonly splitter: LineSplitter;
  private readonly c2a = new Map<string, Pending>();
  private readonly a2c = new Map<string, Pending>();
  /** Switchboard session ids of session/new requests about to be written, in call order. */
  private readonly newSessionQueue: string[] = [];
  /** Sessions loaded while their conversation is stored: updates the matcher recognises as replay are dropped. */
  private readonly replays = new Map<string, ReplayMatcher>();
  /** skipReplay was called: armed by the session's next request if it is session/load, else dropped. */
  private readonly replayToSkip = new Map<string, ReplayMatcher>();
  /** When each loaded session's load was sent or its agent last sent an update (ms), while its replay may come. */
  private readonly replayActivity = new Map<string, number>();
  /** URL elicitation id → session: `elicitation/complete` names no session, and is stored with the one that asked. */
  private readonly elicitations = new Map<string, string>();
  /** Updates for ACP sessions not bound yet, until one is reopened (see claimHeld). */
  private readonly held = new HeldUpdates();
  private ended = false;
  private closed = false;
  private readerGone = false;
  private pendingItems: SplitItem[] = [];
  /** Bytes received since the lines were last taken to be handed on. */
  private readAhead = 0;
  private readAheadFull = false;
  private scheduled: NodeJS.Immediate | null = null;
  /** What collect() prepared, waiting for its commit. */
  private collected: Collected | null = null;

  constructor(
    private readonly transport: WireTransport,
    private readonly messageLog: () => MessageLog | null,
    private readonly agentLog: AgentLog,
    private readonly hooks: WireHooks,
    maxLineBytes: number,
  ) {
    this.splitter = new LineSplitter(maxLineBytes);
    const readable = new ReadableStream<AnyMessage>({
      start: (controller) => {
        this.controller = controller;
      },
      // The SDK stopped reading (its connection closed): nothing more is handed to it.
      cancel: () => {
        this.readerGone = true;
      },
    });
    const writable = new WritableStream<AnyMessage>({
      write: (message) => this.send(message),
    });
    this.stream = { readable, writable };
  }

  /** Requests of the agent not answered yet (the agent waits on this client: not a hang). */
  get pendingAgentRequests(): number {
    return this.a2c.size;
  }

  /** Call right before `session/new` (or `session/fork`) is requested for `sessionId`: its response binds the ACP id. */
  expectNewSession(sessionId: string): void {
    this.newSessionQueue.push(sessionId);
  }

  /**
   * The Switchboard session `sessionId` was withdrawn before the agent created it: what is still to come of
   * its session/new (the late answer, early updates) is no longer its (it goes to the agent log only).
   */
  forgetNewSession(sessionId: string): void {
    for (const p of this.c2a.values()) if (CREATES_SESSION.has(p.method) && p.sessionId === sessionId) p.sessionId = null;
  }

  /**
   * Call right before `session/load` of a session whose conversation (`stored`) is already stored: the
   * updates the agent replays, before or after its answer and whatever it wraps around them, are neither
   * stored again nor handed on (see ReplayMatcher: all of them until the next prompt, then by content).
   */
  skipReplay(sessionId: string, stored: ThreadState): void {
    this.replayToSkip.set(sessionId, new ReplayMatcher(stored));
  }

  /**
   * Resolves once a loaded session's replay has gone quiet: no update for `quietMs` from now (at most `maxMs` in
   * all), at once when the session has no replay in progress. Gemini CLI 0.61 answers session/load before it sends
   * the replay: the first prompt after a load waits for it, so that what the agent replays (some of it never
   * sent live, so not recognisable by its content) is not taken for the new turn.
   */
  async replayQuiet(sessionId: string, quietMs = 250, maxMs = 3000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const replay = this.replays.get(sessionId);
      if (!replay || replay.promptWasSent) return;
      const last = Math.max(this.replayActivity.get(sessionId) ?? 0, started);
      const wait = Math.min(last + quietMs, started + maxMs) - Date.now();
      if (wait <= 0) return;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /**
   * `acpSessionId` was just bound to a session being reopened (before its session/resume or session/load is
   * sent): what the agent sent for it while no session was bound (see HeldUpdates) is stored and handed on
   * now, ahead of anything read after it and of the reopen's replay.
   */
  claimHeld(acpSessionId: string, sessionId: string): void {
    const held = this.held.take(acpSessionId);
    if (held.length === 0 || this.closed) return;
    const stored = (this.messageLog()?.read(sessionId) ?? []).filter((m) => m.direction === 'a2c' && m.method === 'session/update').slice(-held.length);
    const lines = notStoredYet(stored.map((m) => m.body), held);
    this.pendingItems.unshift(...lines.map((text) => ({ kind: 'line' as const, text })));
    this.flush();
  }

  // ───────────── client → agent ─────────────

  private send(message: AnyMessage): Promise<void> {
    const line = JSON.stringify(message);
    const m = message as Record<string, unknown>;
    let sessionId: string | null = null;
    let method: string | null = null;
    if (typeof m.method === 'string') {
      method = m.method;
      sessionId = this.sessionFromParams(m.params);
      if (CREATES_SESSION.has(method)) sessionId = this.newSessionQueue.shift() ?? null;
      if (isId(m.id)) this.c2a.set(idKey(m.id), { method, sessionId });
      const matcher = sessionId !== null ? this.replayToSkip.get(sessionId) : undefined;
      if (matcher) {
        this.replayToSkip.delete(sessionId!);
        if (method === 'session/load') {
          this.replays.set(sessionId!, matcher);
          this.replayActivity.set(sessionId!, Date.now());
        }
      }
      // What a loaded session's agent sends before its next prompt is replay; after it, the new turn starts.
      if (method === 'session/prompt' && sessionId !== null) this.replays.get(sessionId)?.promptSent();
    } else if (isId(m.id)) {
      const key = idKey(m.id);
      sessionId = this.a2c.get(key)?.sessionId ?? null;
      this.a2c.delete(key);
    }
    this.persistOutgoing(sessionId, method, storedLine(method, m, line));
    // Withdrawing a request (the hang watchdog's, a request no one waits for) is Switchboard's own doing:
    // never delivered after a reconnect of the agent's host, to an agent that was only out of reach.
    if (method === '$/cancel_request' && this.transport.writeNowOrNever) {
      this.transport.writeNowOrNever(`${line}\n`);
      return Promise.resolve();
    }
    return this.transport.write(`${line}\n`);
  }

  /**
   * A notification written now or never: not delivered after a reconnect of the agent's host (what Switchboard
   * sends on its own, as the hang watchdog's cancel, must not reach an agent that was only out of reach).
   */
  notifyNowOrNever(method: string, params: Record<string, unknown>): void {
    const line = JSON.stringify({ jsonrpc: '2.0', method, params });
    this.persistOutgoing(this.sessionFromParams(params), method, line);
    if (this.transport.writeNowOrNever) this.transport.writeNowOrNever(`${line}\n`);
    else void this.transport.write(`${line}\n`).catch(() => undefined);
  }

  // ───────────── agent → client ─────────────

  /**
   * Raw stdout bytes. Lines read until the message log next commits (every agent's, in one transaction)
   * are stored together, then handed on: a flood costs a few commits, not one per line. Returns how many
   * complete lines the chunk finished.
   */
  receive(chunk: Buffer): number {
    const before = this.pendingItems.length;
    this.splitter.push(chunk, this.pendingItems);
    const lines = this.pendingItems.length - before;
    // Only lines waiting to be handed on count (a long partial line is the splitter's, bounded there).
    if (this.pendingItems.length === 0) return 0;
    this.readAhead += chunk.length;
    const fills = !this.readAheadFull && this.readAhead >= READ_AHEAD_BYTES;
    if (fills) {
      this.readAheadFull = true;
      this.hooks.readAhead?.(true);
    }
    if (lines === 0 && !fills) return 0;
    const log = this.messageLog();
    if (log) log.schedule(this, this.readAheadFull);
    else if (!this.scheduled) this.scheduled = setImmediate(() => this.flush());
    return lines;
  }

  /** stdout ended: deliver what is left, then close the SDK side. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.splitter.end(this.pendingItems);
    this.flush();
    this.closeReadable();
  }

  /** Handles everything received so far, now. */
  flush(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    if (this.pendingItems.length === 0) return;
    const log = this.messageLog();
    if (log) {
      log.schedule(this);
      log.flush();
      return;
    }
    this.deliver(this.prepareAll(), null);
  }

  /** Resolves once everything received so far has been handed on. */
  drained(): Promise<void> {
    this.flush();
    return Promise.resolve();
  }

  /** LogSource: the session messages of the lines received so far (the rest is routed right away). */
  collect(): LogEntry[] {
    this.collected = this.prepareAll();
    return this.collected.entries;
  }

  /** LogSource: the lines' messages are committed (or could not be); hand them on in wire order. */
  committed(stored: PersistedMessage[] | null, error: unknown): void {
    const c = this.collected;
    this.collected = null;
    if (!c) return;
    if (stored === null && c.entries.length > 0) this.hooks.onWarning(null, 'store_error', `could not store messages: ${String(error)}`);
    this.deliver(c, stored);
  }

  /** Hands the lines on in wire order; messages that were not stored go to the agent log instead. */
  private deliver(c: Collected, stored: PersistedMessage[] | null): void {
    if (stored === null) for (const entry of c.entries) this.agentLog.write(entry.direction, entry.body);
    this.dispatch(c.prepared, (i) => {
      const at = c.entryIndex[i];
      return at === undefined || stored === null ? null : (stored[at]?.seq ?? null);
    });
  }

  private prepareAll(): Collected {
    const items = this.pendingItems;
    this.pendingItems = [];
    this.readAhead = 0;
    if (this.readAheadFull) {
      this.readAheadFull = false;
      this.hooks.readAhead?.(false);
    }
    const prepared: Prepared[] = [];
    const entries: LogEntry[] = [];
    const entryIndex: number[] = [];
    for (const item of items) {
      const p = this.prepare(item);
      if (!p) continue;
      if (p.entry) {
        entryIndex[prepared.length] = entries.length;
        entries.push(p.entry);
      }
      prepared.push(p);
    }
    return { prepared, entries, entryIndex };
  }

  private prepare(item: SplitItem): Prepared | null {
    if (item.kind === 'oversized') return this.oversized(item.size, item.head);
    const raw = item.text;
    // Lines are JSON: trim only when there is something to trim (\r from CRLF agents, stray spaces).
    const text = raw.charCodeAt(0) <= 32 || raw.charCodeAt(raw.length - 1) <= 32 ? raw.trim() : raw;
    if (!text) return null;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      this.agentLog.write('a2c-malformed', text);
      return { kind: 'warning', sessionId: null, warning: 'malformed_line', message: `not JSON (${(e as Error).message}): ${text.slice(0, 200)}` };
    }
    if (!isRecord(msg) || msg.jsonrpc !== '2.0') {
      this.agentLog.write('a2c-malformed', text);
      return { kind: 'warning', sessionId: null, warning: 'malformed_line', message: `not a JSON-RPC 2.0 message: ${text.slice(0, 200)}` };
    }
    const method = typeof msg.method === 'string' ? msg.method : null;
    if (method === 'session/update' && !('id' in msg)) return this.prepareUpdate(msg, text);
    const sessionId = this.routeIncoming(msg, method);
    return { kind: 'sdk', message: msg as AnyMessage, entry: this.entryFor(sessionId, 'a2c', method, text, msg) };
  }

  /** Which session an incoming request or response belongs to (binding new ACP session ids on the way). */
  private routeIncoming(msg: Record<string, unknown>, method: string | null): string | null {
    let sessionId: string | null = null;
    if (method !== null) {
      sessionId = this.sessionFromParams(msg.params);
      if (isId(msg.id)) this.a2c.set(idKey(msg.id), { method, sessionId });
      const elicitationId = isRecord(msg.params) && typeof msg.params.elicitationId === 'string' ? msg.params.elicitationId : null;
      if (elicitationId !== null && method === 'elicitation/create' && sessionId !== null) {
        this.elicitations.set(elicitationId, sessionId);
        if (this.elicitations.size > 1000) this.elicitations.delete(this.elicitations.keys().next().value!);
      } else if (elicitationId !== null && method === 'elicitation/complete') {
        sessionId = this.elicitations.get(elicitationId) ?? null;
      }
    } else if (isId(msg.id)) {
      const key = idKey(msg.id);
      const pending = this.c2a.get(key);
      this.c2a.delete(key);
      sessionId = pending?.sessionId ?? null;
      // Bind the new ACP session id now, before the lines after this one are routed.
      if (pending && sessionId && CREATES_SESSION.has(pending.method) && isRecord(msg.result) && typeof msg.result.sessionId === 'string') {
        this.hooks.bindSession(msg.result.sessionId, sessionId);
      }
    }
    return sessionId;
  }

  /** Switchboard sessions whose session/new is in flight. */
  private pendingNewSessions(): string[] {
    const out: string[] = [];
    for (const p of this.c2a.values()) if (CREATES_SESSION.has(p.method) && p.sessionId !== null) out.push(p.sessionId);
    return out;
  }

  private prepareUpdate(msg: Record<string, unknown>, text: string): Prepared | null {
    const params = msg.params;
    const acpId = isRecord(params) && typeof params.sessionId === 'string' ? params.sessionId : null;
    let sessionId = acpId !== null ? this.hooks.sessionOf(acpId) : undefined;
    if (sessionId === undefined && acpId !== null) {
      // An update for a session whose session/new has not been answered yet (some agents announce
      // commands first): with one session/new in flight, it can only be that one.
      const pending = this.pendingNewSessions();
      if (pending.length === 1) {
        sessionId = pending[0]!;
        this.hooks.bindSession(acpId, sessionId);
      }
    }
    if (!isRecord(params) || sessionId === undefined) {
      this.agentLog.write('a2c', text);
      if (acpId !== null && isRecord(params) && this.held.keep(acpId, text)) return null;
      return {
        kind: 'warning',
        sessionId: null,
        warning: 'unknown_session',
        message: acpId === null ? 'session/update without a sessionId' : `session/update for unknown session ${acpId.slice(0, 100)}`,
      };
    }
    const update = params.update;
    if (isRecord(update) && update.sessionUpdate === 'subagent_update' && typeof update.sessionId === 'string' && this.hooks.sessionOf(update.sessionId) === undefined) {
      this.hooks.announceChild?.(sessionId, update.sessionId);
    }
    const replay = this.replays.get(sessionId);
    if (replay) {
      if (!replay.promptWasSent) this.replayActivity.set(sessionId, Date.now());
      if (replay.isReplay(params.update)) return null;
      if (replay.done) {
        this.replays.delete(sessionId);
        this.replayActivity.delete(sessionId);
      }
    }
    return { kind: 'update', sessionId, params, entry: this.entryFor(sessionId, 'a2c', 'session/update', text, msg) };
  }

  /**
   * A line over the size limit was skipped. Its head tells what it was: a request gets an error answer
   * (so the agent is not left waiting), a response fails the pending request.
   */
  private oversized(size: number, headText: string): Prepared {
    this.agentLog.write('a2c-oversized', `${size} bytes, starting: ${headText.slice(0, 1000)}`);
    const acpId = /"sessionId"\s*:\s*"([^"]{1,200})"/.exec(headText)?.[1];
    const sessionId = acpId ? (this.hooks.sessionOf(acpId) ?? null) : null;
    const method = /"method"\s*:\s*"([^"]{1,200})"/.exec(headText)?.[1] ?? null;
    const idMatch = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/.exec(headText)?.[1];
    const message = `dropped a ${(size / 1e6).toFixed(1)} MB message${method ? ` (${method})` : ''}: over the ${(this.splitter.maxLineBytes / 1048576).toFixed(0)} MiB limit`;
    if (idMatch !== undefined) {
      let id: unknown;
      try {
        id = JSON.parse(idMatch);
      } catch {
        id = undefined;
      }
      if (isId(id)) {
        if (method) {
          // The agent's request: answer it so it does not wait forever.
          this.a2c.set(idKey(id), { method, sessionId });
          void this.send({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request: message too large' } } as AnyMessage).catch(() => {});
        } else if (this.c2a.has(idKey(id))) {
          // A response to our request: fail that request.
          const pending = this.c2a.get(idKey(id))!;
          this.c2a.delete(idKey(id));
          this.handOn({ jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: the agent's ${pending.method} response was too large` } } as AnyMessage);
        }
      }
    }
    return { kind: 'warning', sessionId, warning: 'oversized_line', message };
  }

  private dispatch(prepared: Prepared[], seqOf: (index: number) => number | null): void {
    let run: UpdateItem[] = [];
    let runSession: string | null = null;
    const flushRun = () => {
      if (run.length > 0 && runSession !== null) this.hooks.onUpdates(runSession, run);
      run = [];
      runSession = null;
    };
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[i]!;
      if (p.kind === 'update') {
        if (runSession !== null && runSession !== p.sessionId) flushRun();
        runSession = p.sessionId;
        run.push({ params: p.params, seq: seqOf(i) });
        continue;
      }
      flushRun();
      if (p.kind === 'sdk') {
        this.handOn(p.message);
      } else {
        this.hooks.onWarning(p.sessionId, p.warning, p.message);
      }
    }
    flushRun();
  }

  /** To the SDK connection, unless it or this wire has closed. */
  private handOn(message: AnyMessage): void {
    if (this.closed || this.readerGone) return;
    try {
      this.controller?.enqueue(message);
    } catch {
      // The stream was closed from its reading side between two messages of one batch.
      this.readerGone = true;
    }
  }

  private closeReadable(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.controller?.close();
    } catch {
      /* already closed */
    }
    this.newSessionQueue.length = 0;
    this.replays.clear();
    this.replayToSkip.clear();
    this.replayActivity.clear();
    this.held.clear();
  }

  private sessionFromParams(params: unknown): string | null {
    if (!isRecord(params) || typeof params.sessionId !== 'string') return null;
    return this.hooks.sessionOf(params.sessionId) ?? null;
  }

  /** The log entry of a session message; a sessionless one goes to the agent log right away. */
  private entryFor(sessionId: string | null, direction: 'c2a' | 'a2c', method: string | null, body: string, parsed?: unknown): LogEntry | null {
    if (sessionId === null) {
      this.agentLog.write(direction, body);
      return null;
    }
    return parsed === undefined ? { sessionId, direction, method, body } : { sessionId, direction, method, body, parsed };
  }

  /** Outgoing messages are appended in send order (MessageLog batches them per tick). */
  private persistOutgoing(sessionId: string | null, method: string | null, body: string): void {
    const entry = this.entryFor(sessionId, 'c2a', method, body);
    const log = entry ? this.messageLog() : null;
    if (!entry) return;
    if (!log) {
      this.agentLog.write('c2a', body);
      return;
    }
    log.append(entry).catch((e: unknown) => {
      this.agentLog.write('c2a', body);
      this.hooks.onWarning(sessionId, 'store_error', `could not store a message: ${String(e)}`);
    });
  }
}
