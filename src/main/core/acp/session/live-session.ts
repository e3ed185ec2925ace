import { sharesThisMachine } from '../../../../shared/contract/hosts';
import {
  RequestError,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type CreateTerminalRequest,
  type CreateTerminalResponse,
  type LoadSessionResponse,
  type NewSessionResponse,
  type PromptResponse,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type ResumeSessionResponse,
  type SessionConfigOption,
  type SessionUpdate,
  type SetSessionConfigOptionResponse,
  type WriteTextFileRequest,
  type WriteTextFileResponse,
} from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import {
  applyEvents,
  createThread,
  subagentWorking,
  threadEntries,
  threadLength,
  threadTail,
  type SubagentEntry,
  type ThreadEntry,
  type ThreadEvent,
  type ThreadState,
  type TurnError,
} from '../../../../shared/acp-thread';
import { IpcFailure } from '../../../../shared/contract';
import { promptSummary, storedTitle } from '../../../../shared/session-title';
import type { ElicitationAction, ElicitationContent } from '../../../../shared/elicitation';
import { type PromptBlock, type QueueItem, type SessionInfo, type SessionSnapshot, type SessionStatus, type SessionUpdateItem } from '../../../../shared/contract/sessions';
import type { AgentRuntime } from '../runtimes/agent-runtime';
import { AUTH_REQUIRED } from '../../agents/auth';
import type { ConfinedFiles } from '../../host/files';
import { readTextFile, writeTextFile } from './fs-access';
import type { SessionHost } from './session-host';
import type { SessionTurn } from './turns';
import { openConfig } from './open-config';
import type { AskingSession, EmittedEvent } from './asking-session';
import { fencedNetwork } from './fence-answer';
import { ElicitationRequests } from './elicitation-requests';
import { PermissionRequests, type PermissionAnswer } from './permission-requests';
import { MentionSearch } from './mention-search';
import { checkPromptCapabilities, toContentBlocks } from './prompt-content';
import { reopenModeOf } from '../../agents/agent-capabilities';
import { canFork } from './fork';
import { checkUpdate } from '../../../../shared/acp-thread/update-check';
import { joinChunkRuns } from '../connection/chunk-runs';
import type { UpdateItem } from '../connection/acp-wire';
import { sendTitleToAgent } from './title-sync';
import { turnErrorOf } from './turn-error';

const TERMINAL_STATUSES: ReadonlySet<SessionStatus> = new Set(['failed', 'closed']);

/**
 * One live Switchboard session: the ACP session on an agent process, its state machine
 * (starting → idle ⇄ working ⇄ awaiting_permission; auth_required; failed; closed), its prompt queue,
 * pending permission requests, and its thread (the acp-thread model, kept so a view can attach).
 */
export class LiveSession {
  acpSessionId: string | null = null;
  status: SessionStatus = 'starting';
  error: string | null = null;
  /** The agent's title for the session (session_info_update), or the one stored for it. */
  title: string | null = null;
  /** The user's name for it (History → Rename). */
  private customTitle: string | null = null;
  /** The summary of its first prompt. */
  private promptTitle: string | null = null;
  additionalDirectories: string[] = [];
  /** The session this one was forked from (shown on the fork). */
  forkedFrom: { id: string; title: string } | null = null;
  /** open('fork'): the ACP session the agent forks. */
  forkSource: string | null = null;
  /** An ACP subagent session: the session whose agent started it, and whether the agent lets it be cancelled. */
  subagent: { parentId: string; canCancel: boolean; working: boolean } | null = null;
  /** A session started through another's delegation tools: that session (shown as its child). */
  delegatedBy: string | null = null;
  /** Its agent was stopped while idle (idle-sleep.ts): brought back by the next prompt or a look ('waking' meanwhile). */
  asleep: 'asleep' | 'waking' | null = null;
  /** A subagent's folders being opened for its file requests (a child is not opened with session/new). */
  private confining: Promise<void> | null = null;
  readonly createdAt = Date.now();
  updatedAt = Date.now();
  private thread: ThreadState = createThread();
  private n = 0;
  private queue: QueueItem[] = [];
  /** What the queue waits for before its first prompt goes (the worktree's setup command), or null. */
  private held: string | null = null;
  private readonly permissions: PermissionRequests;
  private readonly elicitations: ElicitationRequests;
  private turn: { promptId: string; item: QueueItem; cancelled: boolean } | null = null;
  /** A prompt refused with auth_required: sent again once the agent is authenticated. */
  private authRetry: QueueItem | null = null;
  private confined: ConfinedFiles | null = null;
  private mentions: MentionSearch | null = null;
  /** The agent process this session lived on is gone. */
  private gone = false;
  /** Withdraws the session/new, load, resume or fork in flight ($/cancel_request) when the user gives up on it. */
  private opening: AbortController | null = null;
  /** Aborted when the user gives up on the session while it is starting (closes or cancels it). */
  private readonly withdrawal = new AbortController();

  constructor(
    readonly id: string,
    readonly runtime: AgentRuntime,
    private readonly host: SessionHost,
    readonly cwd: string,
    private readonly requestedDirectories: string[],
  ) {
    const asking: AskingSession = {
      id,
      agentId: runtime.agentId,
      cwd,
      host,
      thread: () => this.thread,
      turn: () => this.turn,
      closed: () => this.status === 'closed',
      emit: (events) => this.emit(events),
      db: (fn) => this.db(fn),
      waitForUser: () => this.setStatus('awaiting_permission'),
      answered: () => this.userAnswered(),
      fence: () => (this.host.setting('containers.fencedAutoApprove') ? (this.db(() => fencedNetwork(this.runtime.hostId, (key) => this.host.rows().container(key))) ?? null) : null),
    };
    this.permissions = new PermissionRequests(asking);
    this.elicitations = new ElicitationRequests(asking);
  }

  get withdrawn(): boolean {
    return this.withdrawal.signal.aborted;
  }

  /** Resolves when the user gives up on the session while it is starting. */
  whenWithdrawn(): Promise<void> {
    const signal = this.withdrawal.signal;
    return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  }

  /** (A method, so TypeScript does not narrow it across awaits.) */
  currentStatus(): SessionStatus {
    return this.status;
  }

  get agentId(): string {
    return this.runtime.agentId;
  }

  info(): SessionInfo {
    const caps = this.runtime.capabilities?.promptCapabilities;
    return {
      id: this.id,
      agentId: this.agentId,
      acpSessionId: this.acpSessionId,
      hostId: this.runtime.hostId,
      cwd: this.cwd,
      additionalDirectories: this.additionalDirectories,
      // The one title rule (shared/session-title): the same as history's.
      title: storedTitle({ custom: this.customTitle, agent: this.title, prompt: this.promptTitle }),
      status: this.status,
      error: this.error,
      prompt: { image: Boolean(caps?.image), audio: Boolean(caps?.audio), embeddedContext: Boolean(caps?.embeddedContext) },
      canFork: canFork(this.runtime.capabilities),
      forkedFrom: this.forkedFrom,
      ...(this.subagent ? { subagent: { parentId: this.subagent.parentId, canCancel: this.subagent.canCancel } } : {}),
      ...(this.delegatedBy ? { delegatedBy: this.delegatedBy } : {}),
      ...(this.asleep ? { asleep: this.asleep } : {}),
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
    };
  }

  /** Starts the thread from what is already stored (a reopened session). */
  seed(thread: ThreadState, title: string | null): void {
    // Questions of an earlier agent process can no longer be answered.
    const dead = thread.entries.flatMap((e): ThreadEvent[] => (e.kind === 'elicitation' && e.state === 'pending' ? [{ type: 'elicitation_resolved', requestId: e.requestId, action: 'cancel', content: null }] : []));
    this.thread = applyEvents(thread, dead);
    this.title = title;
    const stored = this.host.rows().titles(this.id);
    this.customTitle = stored.custom;
    const first = this.thread.entries.find((e) => e.kind === 'user_message');
    this.promptTitle = promptSummary(stored.prompt) ?? (first ? promptSummary(first.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')) : null);
  }

  /** The user renamed the session (or gave it its automatic title back). */
  refreshCustomTitle(): void {
    const custom = this.host.rows().titles(this.id).custom;
    if (custom === this.customTitle) return;
    this.customTitle = custom;
    this.host.bus.emit('session.state', this.info());
    if (custom !== null) void sendTitleToAgent(this.runtime, this.acpSessionId, custom, (m) => this.host.warn(this.runtime.agentId, this.id, 'settings', m));
  }

  /** The session's state; with `tail`, its thread holds only its last `tail` entries. */
  snapshot(tail?: number): SessionSnapshot {
    const thread = tail === undefined ? this.thread : threadTail(this.thread, tail);
    return { session: this.info(), thread, n: this.n, queue: this.queue, ...(this.held ? { queueWaitingFor: this.held } : {}), permissions: this.permissions.infos() };
  }

  /** The thread's whole toolIndex, with `n` of the last event folded into it. */
  toolIndex(): { toolIndex: Record<string, number>; n: number } {
    return { toolIndex: { ...this.thread.toolIndex }, n: this.n };
  }

  /** Entries [from, from + count) of the thread, with `n` of the last event folded into them. */
  entries(from: number, count: number): { from: number; entries: ThreadEntry[]; total: number; n: number } {
    return { from, entries: threadEntries(this.thread, from, count), total: threadLength(this.thread), n: this.n };
  }

  private db<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      console.error(`session ${this.id}: store write failed:`, e);
      return undefined;
    }
  }

  private setStatus(status: SessionStatus, error: string | null = null): void {
    if (this.status === 'closed') return;
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.updatedAt = Date.now();
    this.db(() => this.host.rows().setStatus(this.id, status, error));
    const info = this.info();
    this.host.statusChanged(info);
    this.host.bus.emit('session.state', info);
  }

  /** Folds events into the thread, then tells the renderer (callers persist first). */
  private emit(events: EmittedEvent[]): void {
    if (events.length === 0) return;
    const items = new Array<SessionUpdateItem>(events.length);
    const folded = new Array<ThreadEvent>(events.length);
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      items[i] = e.merged !== undefined && e.merged > 1 ? { n: ++this.n, seq: e.seq, event: e.event, merged: e.merged } : { n: ++this.n, seq: e.seq, event: e.event };
      folded[i] = e.event;
    }
    this.thread = applyEvents(this.thread, folded);
    this.host.bus.emit('session.update', { sessionId: this.id, events: items });
    this.host.updated(this.id, items);
  }

  private emitQueue(): void {
    this.host.bus.emit('session.queue', { sessionId: this.id, items: this.queue, ...(this.held ? { waitingFor: this.held } : {}) });
  }

  // ───────────── setup ─────────────

  /**
   * session/new, or session/fork of `forkSource`; session/resume or session/load (after an agent restart, or
   * reopening a stored session; a load replays the conversation as updates). Auth errors leave the session
   * in auth_required.
   */
  async open(mode: 'new' | 'fork' | 'resume' | 'load'): Promise<void> {
    const caps = this.runtime.capabilities;
    const dirs = caps?.sessionCapabilities?.additionalDirectories ? this.requestedDirectories : [];
    this.additionalDirectories = dirs;
    this.confined = await this.runtime.workHost.files([this.cwd, ...dirs]);
    this.mentions = new MentionSearch(this.runtime.workHost, this.confined.roots);
    const mcp = await this.host.mcpFor(this.agentId, caps, this.id);
    for (const s of mcp.leftOut) if (s.warn) this.host.warn(this.agentId, this.id, 'settings', `${s.name}: ${s.reason}`);
    const params = { cwd: this.cwd, mcpServers: mcp.servers, ...(dirs.length > 0 ? { additionalDirectories: dirs } : {}) };
    this.db(() => this.host.recordConfig(this.id, openConfig(this.host, this.agentId, this.cwd, mode, this.requestedDirectories, dirs, mcp)));
    this.gone = false;
    this.setStatus('starting');
    const opening = new AbortController();
    this.opening = opening;
    const withdrawable = { cancellationSignal: opening.signal, stopWaitingOnCancel: true };
    let result: NewSessionResponse | ResumeSessionResponse | LoadSessionResponse;
    try {
      if (mode === 'new' || mode === 'fork') {
        const method = `session/${mode}`;
        this.runtime.expectNewSession(this.id);
        const res = await this.runtime.request<NewSessionResponse>(method, mode === 'fork' ? { sessionId: this.forkSource, ...params } : params, withdrawable);
        if (typeof res?.sessionId !== 'string') throw new Error(`the agent answered ${method} without a sessionId`);
        if (!this.runtime.bind(res.sessionId, this.id)) {
          throw new Error(`the agent answered ${method} with the id of another open session (${res.sessionId.slice(0, 200)})`);
        }
        this.acpSessionId = res.sessionId;
        this.db(() => this.host.rows().setAcpSessionId(this.id, res.sessionId));
        result = res;
      } else {
        // Bound first: session/load replays the conversation before it answers.
        this.runtime.bindReopened(this.acpSessionId!, this.id);
        const method = mode === 'resume' ? 'session/resume' : 'session/load';
        result = await this.runtime.request<ResumeSessionResponse>(method, { sessionId: this.acpSessionId, ...params }, withdrawable);
      }
    } catch (e) {
      if (e instanceof RequestError && e.code === AUTH_REQUIRED) {
        this.setStatus('auth_required', e.message);
        return;
      }
      const message = opening.signal.aborted ? `session/${mode} was cancelled` : `session/${mode} failed: ${turnErrorOf(e).message}`;
      this.setStatus('failed', message);
      throw new IpcFailure('agent_error', message);
    } finally {
      if (this.opening === opening) this.opening = null;
    }
    this.emit([{ event: { type: 'setup', modes: result?.modes ?? null, configOptions: result?.configOptions ?? null }, seq: null }]);
    this.asleep = null;
    this.setStatus('idle');
    this.drain();
  }

  /**
   * After an agent restart: resume when the agent can, else load, create the session when it never was.
   * A load's replay is dropped: this live thread, and the store, already hold every message it repeats
   * (recognised by comparing with this thread).
   */
  async reopen(): Promise<boolean> {
    if (this.status === 'closed' || this.subagent) return false;
    if (this.acpSessionId === null) {
      await this.open(this.forkSource !== null ? 'fork' : 'new').catch(() => {});
      return this.currentStatus() === 'idle';
    }
    const mode = reopenModeOf(this.runtime.capabilities);
    if (!mode) return false;
    if (mode === 'load') this.runtime.skipReplay(this.id, this.thread);
    await this.open(mode).catch(() => {});
    return this.currentStatus() === 'idle';
  }

  /** The agent was authenticated: create the session or send the refused prompt again. */
  async retryAfterAuth(): Promise<void> {
    if (this.status !== 'auth_required') return;
    // The refused prompt goes first.
    if (this.authRetry) {
      this.queue.unshift(this.authRetry);
      this.authRetry = null;
      this.emitQueue();
    }
    if (this.acpSessionId === null) {
      await this.open(this.forkSource !== null ? 'fork' : 'new').catch(() => {});
    } else {
      this.setStatus('idle');
    }
    this.drain();
  }

  // ───────────── prompts ─────────────

  prompt(blocks: PromptBlock[]): { promptId: string; queued: boolean } {
    if (this.subagent) throw new IpcFailure('unavailable', 'a subagent session takes its work from the session that started it, not from prompts');
    if (TERMINAL_STATUSES.has(this.status)) throw new IpcFailure('unavailable', `the session is ${this.status}${this.error ? `: ${this.error}` : ''}`);
    checkPromptCapabilities(blocks, this.runtime.capabilities?.promptCapabilities);
    const item: QueueItem = { id: randomUUID(), prompt: blocks, createdAt: Date.now() };
    this.holdFor(this.host.folderHold(this.cwd));
    if (this.status === 'idle' && !this.turn && this.queue.length === 0 && !this.held && !this.asleep) {
      void this.send(item);
      return { promptId: item.id, queued: false };
    }
    this.queue.push(item);
    this.emitQueue();
    if (this.asleep) void this.host.wake(this.id);
    return { promptId: item.id, queued: true };
  }

  /**
   * Holds the queue until the session's folder is ready (its worktree's setup command has ended): the agent's
   * first turn does not start on a half-installed folder. The queue says what it waits for.
   */
  private holdFor(hold: { reason: string; done: Promise<unknown> } | null): void {
    if (!hold || this.held) return;
    this.held = hold.reason;
    const release = () => {
      this.held = null;
      this.emitQueue();
      this.drain();
    };
    hold.done.then(release, release);
  }

  private drain(): void {
    if (this.status !== 'idle' || this.turn || this.queue.length === 0 || this.gone || this.held || this.asleep) return;
    const next = this.queue.shift()!;
    this.emitQueue();
    void this.send(next);
  }

  private async send(item: QueueItem): Promise<void> {
    this.promptTitle ??= promptSummary(item.prompt.map((b) => (b.type === 'text' ? b.text : '')).join(''));
    this.turn = { promptId: item.id, item, cancelled: false };
    this.setStatus('working');
    let content;
    try {
      content = await toContentBlocks(item.prompt, this.runtime.capabilities?.promptCapabilities, this.confined!);
    } catch (e) {
      this.emit([{ event: { type: 'prompt', promptId: item.id, content: [] }, seq: null }]);
      this.finishTurn(item.id, null, turnErrorOf(e));
      return;
    }
    this.emit([{ event: { type: 'prompt', promptId: item.id, content }, seq: null }]);
    try {
      await this.host.turnStarting(this.turnInfo(item.id));
      // Cancelled while the "before" checkpoint was taken: the prompt never reaches the agent.
      if (this.turn?.promptId === item.id && this.turn.cancelled) return this.finishTurn(item.id, 'cancelled', null);
      // Right after a load, the agent's replay may still be coming (Gemini CLI sends it after its answer).
      await this.runtime.replayQuiet(this.id);
      const res = await this.runtime.request<PromptResponse>('session/prompt', { sessionId: this.acpSessionId, prompt: content });
      const stop = typeof res?.stopReason === 'string' ? res.stopReason : null;
      this.finishTurn(item.id, stop, stop === null ? { code: 'invalid_response', message: 'the agent ended the turn without a stop reason' } : null);
    } catch (e) {
      if (!this.runtime.connected) {
        // The process died mid-turn: let the runtime finish its exit handling (it tells why).
        await Promise.race([this.runtime.exitHandled, new Promise((r) => setTimeout(r, 5000))]);
        this.onAgentGone(this.runtime.error ?? 'the agent process ended');
        return;
      }
      const err = turnErrorOf(e);
      if (err.code === AUTH_REQUIRED) {
        this.authRetry = item;
        this.finishTurn(item.id, null, err);
        this.setStatus('auth_required', err.message);
        return;
      }
      this.finishTurn(item.id, null, err);
    }
  }

  private finishTurn(promptId: string, stopReason: PromptResponse['stopReason'] | null, error: TurnError | null): void {
    if (this.turn?.promptId !== promptId) return;
    this.turn = null;
    this.host.turnEnded({ ...this.turnInfo(promptId), stopReason, error });
    // Left-over permission requests of the turn can no longer be answered usefully.
    this.permissions.cancelAll();
    this.elicitations.cancel(promptId);
    this.emit([{ event: { type: 'turn_end', promptId, stopReason, error }, seq: null }]);
    this.db(() => this.host.rows().touch(this.id));
    if (!this.gone && (this.status === 'working' || this.status === 'awaiting_permission')) this.setStatus('idle');
    this.drain();
  }

  private turnInfo(promptId: string): SessionTurn {
    return { sessionId: this.id, promptId, hostId: this.runtime.hostId, roots: [this.cwd, ...this.additionalDirectories] };
  }

  cancel(clearQueue: boolean): void {
    if (this.subagent) return this.cancelSubagent();
    if (clearQueue && this.queue.length > 0) {
      this.queue = [];
      this.emitQueue();
    }
    if (this.status === 'starting') this.withdrawal.abort();
    this.opening?.abort();
    if (!this.turn || this.turn.cancelled) return;
    this.turn.cancelled = true;
    void this.runtime.notify('session/cancel', { sessionId: this.acpSessionId });
    this.permissions.cancelAll();
    this.elicitations.cancel(this.turn.promptId);
    this.emit([{ event: { type: 'cancel' }, seq: null }]);
    void this.host.endSubagents(this.id, 'cancel');
  }

  // ───────────── as a subagent ─────────────

  /** Opened as the child `acpSessionId` of `parentId`, already at work (the agent announced it running). */
  attachAsChild(parentId: string, acpSessionId: string): void {
    this.subagent = { parentId, canCancel: false, working: true };
    this.acpSessionId = acpSessionId;
    this.status = 'working';
    this.additionalDirectories = this.requestedDirectories;
    // Confined to its parent's folders, whatever folder the agent reports for it.
    this.confining = this.runtime.workHost.files([this.cwd, ...this.requestedDirectories]).then((c) => {
      this.confined = c;
    });
    this.confining.catch(() => {});
  }

  /** What the parent's last `subagent_update` says of this child. */
  subagentChanged(entry: SubagentEntry): void {
    if (!this.subagent || this.status === 'closed' || this.gone) return;
    this.subagent.canCancel = entry.canCancel;
    this.subagent.working = subagentWorking(entry);
    if (entry.title !== this.title) {
      this.title = entry.title;
      this.db(() => this.host.rows().setTitle(this.id, entry.title));
    }
    const waiting = this.permissions.size > 0 || this.elicitations.size > 0;
    const status = waiting || entry.state === 'requires_action' ? 'awaiting_permission' : this.subagent.working ? 'working' : entry.state === 'idle' ? 'idle' : this.status;
    if (status !== this.status) this.setStatus(status);
    else this.host.bus.emit('session.state', this.info());
  }

  /** The parent's turn was cancelled: shown ended (the agent says so if it goes on). */
  endedByParent(): void {
    if (!this.subagent || this.status === 'closed' || this.gone) return;
    this.subagent.working = false;
    this.permissions.cancelAll();
    this.elicitations.cancel(null, true);
    this.emit([{ event: { type: 'closed' }, seq: null }]);
    this.setStatus('idle');
    void this.host.endSubagents(this.id, 'cancel');
  }

  private cancelSubagent(): void {
    if (!this.subagent?.canCancel) throw new IpcFailure('unavailable', 'the agent does not let this subagent be cancelled');
    if (this.status === 'closed' || this.gone) return;
    void this.runtime.notify('session/cancel', { sessionId: this.acpSessionId });
    this.permissions.cancelAll();
    this.elicitations.cancel(null, true);
    this.emit([{ event: { type: 'cancel' }, seq: null }]);
    void this.host.endSubagents(this.id, 'cancel');
  }

  /**
   * A session this one delegated to, shown in its thread as an ACP subagent is (a card under the turn that started
   * it): Switchboard's own `subagent_update`, not the agent's; not stored with the agent's messages.
   */
  showDelegated(update: SessionUpdate): void {
    if (this.status === 'closed') return;
    this.emit([{ event: { type: 'update', update }, seq: null }]);
  }

  /** The agent announced a child of this session (`subagent_update`): its Switchboard id, undefined when refused. */
  openSubagent(childAcpSessionId: string): string | undefined {
    return this.host.openSubagent(this.id, childAcpSessionId);
  }

  // ───────────── queue ─────────────

  queueItems(): QueueItem[] {
    return this.queue;
  }

  private queueIndex(itemId: string): number {
    const i = this.queue.findIndex((q) => q.id === itemId);
    if (i < 0) throw new IpcFailure('not_found', `no queued prompt ${itemId} (it may have been sent)`);
    return i;
  }

  updateQueued(itemId: string, prompt: PromptBlock[]): QueueItem[] {
    checkPromptCapabilities(prompt, this.runtime.capabilities?.promptCapabilities);
    const i = this.queueIndex(itemId);
    this.queue = this.queue.map((q, j) => (j === i ? { ...q, prompt } : q));
    this.emitQueue();
    return this.queue;
  }

  removeQueued(itemId: string): QueueItem[] {
    const i = this.queueIndex(itemId);
    this.queue = this.queue.filter((_, j) => j !== i);
    this.emitQueue();
    return this.queue;
  }

  moveQueued(itemId: string, toIndex: number): QueueItem[] {
    const i = this.queueIndex(itemId);
    const next = this.queue.slice();
    const [item] = next.splice(i, 1);
    next.splice(Math.min(toIndex, next.length), 0, item!);
    this.queue = next;
    this.emitQueue();
    return this.queue;
  }

  clearQueue(): QueueItem[] {
    this.queue = [];
    this.emitQueue();
    return this.queue;
  }

  // ───────────── modes and config ─────────────

  private async requireReady(): Promise<void> {
    if (this.asleep) await this.host.wake(this.id);
    if (this.acpSessionId === null || TERMINAL_STATUSES.has(this.status)) {
      throw new IpcFailure('unavailable', `the session is ${this.status}`);
    }
  }

  async setMode(modeId: string): Promise<void> {
    await this.requireReady();
    await this.runtime.request('session/set_mode', { sessionId: this.acpSessionId, modeId }).catch((e) => {
      throw new IpcFailure('agent_error', turnErrorOf(e).message);
    });
    this.emit([{ event: { type: 'mode', modeId }, seq: null }]);
  }

  async setConfigOption(configId: string, value: string | boolean): Promise<SessionConfigOption[]> {
    await this.requireReady();
    const option = this.thread.configOptions.find((o) => o.id === configId);
    if (!option) throw new IpcFailure('not_found', `the agent offers no option ${configId}`);
    if ((option.type === 'boolean') !== (typeof value === 'boolean')) {
      throw new IpcFailure('invalid_params', `option ${configId} takes a ${option.type === 'boolean' ? 'boolean' : 'string'} value`);
    }
    const params =
      typeof value === 'boolean'
        ? { sessionId: this.acpSessionId, configId, type: 'boolean', value }
        : { sessionId: this.acpSessionId, configId, value };
    const res = await this.runtime.request<SetSessionConfigOptionResponse>('session/set_config_option', params).catch((e) => {
      throw new IpcFailure('agent_error', turnErrorOf(e).message);
    });
    const options = Array.isArray(res?.configOptions) ? res.configOptions : [];
    this.emit([{ event: { type: 'config_options', configOptions: options }, seq: null }]);
    return this.thread.configOptions.slice();
  }

  // ───────────── from the agent ─────────────

  /** A persisted run of session/update notifications, in wire order. */
  onAgentUpdates(items: UpdateItem[]): void {
    if (this.status === 'closed') return;
    const valid: Array<{ update: SessionUpdate; extra: number | null }> = [];
    let title: string | null | undefined;
    for (const { params, seq } of items) {
      const update = params.update;
      const check = checkUpdate(update);
      if (!check.ok) {
        this.runtime.log.write('warning', `${check.message}: ${JSON.stringify(update)?.slice(0, 2000)}`);
        this.host.warn(this.agentId, this.id, check.unknownKind ? 'unknown_update' : 'invalid_update', check.message);
        continue;
      }
      const u = update as { sessionUpdate: string; title?: unknown };
      if (u.sessionUpdate === 'session_info_update' && 'title' in u) title = typeof u.title === 'string' ? u.title : null;
      valid.push({ update: update as SessionUpdate, extra: seq });
    }
    this.emit(joinChunkRuns(valid).map((r) => ({ event: { type: 'update', update: r.update }, seq: r.extra, merged: r.count })));
    for (const { update } of valid) if (update.sessionUpdate === ('subagent_update' as string)) this.subagentFolded((update as unknown as { sessionId: unknown }).sessionId);
    if (title !== undefined && title !== this.title) {
      this.title = title;
      this.db(() => this.host.rows().setTitle(this.id, title ?? null));
      this.host.bus.emit('session.state', this.info());
    }
  }

  private subagentFolded(childId: unknown): void {
    const entries = this.thread.entries;
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      if (e.kind === 'subagent' && e.childId === childId) return this.host.subagentUpdated(this.id, e);
    }
  }

  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> | RequestPermissionResponse {
    return this.permissions.request(params, signal);
  }

  respondPermission(requestId: string, answer: PermissionAnswer): void {
    this.permissions.respond(requestId, answer);
  }

  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> | CreateElicitationResponse {
    return this.elicitations.create(params, signal);
  }

  respondElicitation(requestId: string, action: ElicitationAction, content: ElicitationContent | undefined): void {
    this.elicitations.respond(requestId, action, content);
  }

  completeElicitation(elicitationId: string): boolean {
    return this.elicitations.complete(elicitationId);
  }

  /** The last question the user had to answer was answered: back to working (or idle). */
  private userAnswered(): void {
    if (this.permissions.size > 0 || this.elicitations.size > 0 || this.status !== 'awaiting_permission') return;
    this.setStatus(this.turn || this.subagent?.working ? 'working' : 'idle');
    this.drain();
  }

  private get roots(): ConfinedFiles {
    if (!this.confined) throw RequestError.internalError(undefined, 'the session is not ready');
    return this.confined;
  }

  async readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    await this.confining;
    const compat = this.host.prefs().get(this.agentId).compat;
    const content = await readTextFile(this.roots, params.path, params.line, params.limit, { missingFileAsEmpty: compat.missingFileAsEmpty });
    return { content };
  }

  async writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse> {
    await this.confining;
    await writeTextFile(this.roots, params.path, params.content);
    return {};
  }

  async createTerminal(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    // This machine's login environment stays here: a terminal on a remote host gets the host's own.
    const base = sharesThisMachine(this.runtime.hostId) ? await this.host.loginEnv() : {};
    const env: Record<string, string> = { ...base, TERM: 'xterm-256color' };
    for (const v of params.env ?? []) if (v && typeof v.name === 'string' && typeof v.value === 'string') env[v.name] = v.value;
    const terminalId = this.host.terminals.create(this.agentId, this.id, {
      host: this.runtime.workHost,
      command: params.command,
      args: params.args ?? [],
      env,
      cwd: params.cwd ?? this.cwd,
      outputByteLimit: params.outputByteLimit ?? null,
    });
    return { terminalId };
  }

  async mentionSearch(query: string, limit: number): Promise<{ results: Array<{ path: string; relativePath: string; root: string }>; truncated: boolean }> {
    this.mentions ??= new MentionSearch(this.runtime.workHost, [this.cwd]);
    return this.mentions.search(query, limit);
  }

  // ───────────── endings ─────────────

  /** The agent process is gone (crashed, stopped): the turn fails, the session cannot continue as is. */
  onAgentGone(message: string): void {
    // An agent stopped to give its memory back (idle-sleep.ts) leaves its sessions open.
    if (this.status === 'closed' || this.gone || this.asleep) return;
    this.gone = true;
    this.permissions.cancelAll();
    this.elicitations.cancel(null, true);
    if (this.turn) {
      const { promptId } = this.turn;
      this.finishTurn(promptId, null, { code: 'agent_exited', message });
    }
    if (this.acpSessionId) this.runtime.unbind(this.acpSessionId);
    this.setStatus('failed', message);
    void this.host.terminals.releaseSession(this.id);
  }

  onAuthLapsed(account: string | null): void {
    if (this.status !== 'closed' && !this.subagent) this.emit([{ event: { type: 'auth_lapsed', account }, seq: null }]);
  }

  /** A tool call of the current turn is still running (the agent may rightly be quiet meanwhile). */
  toolInProgress(): boolean {
    if (!this.turn) return false;
    const { entries, turn } = this.thread;
    for (let i = Math.max(0, turn.startIndex); i < entries.length; i++) {
      const e = entries[i]!;
      if (e.kind === 'tool_call' && (e.status === 'pending' || e.status === 'in_progress')) return true;
    }
    return false;
  }

  /** The supervisor's word on a failed session (restarting in n s, restarts given up…). */
  explainFailure(message: string): void {
    if (this.status === 'failed') this.setStatus('failed', message);
  }

  /**
   * Opening failed (session/new, resume or load refused): the session is not live. The renderer is told it
   * is closed, with the agent's error, so that its stored transcript is what remains, read-only.
   */
  abandon(): void {
    if (this.acpSessionId) this.runtime.unbind(this.acpSessionId);
    this.setStatus('closed', this.error);
    this.status = 'closed';
  }

  /** `tellAgent: false` on app shutdown (the agent is about to be stopped anyway). */
  async close(tellAgent = true, why: string | null = null): Promise<void> {
    if (this.status === 'closed') return;
    if (this.status === 'starting') this.withdrawal.abort();
    this.opening?.abort();
    if (this.turn) this.cancel(false);
    this.permissions.cancelAll();
    this.elicitations.cancel(null, true);
    await this.host.endSubagents(this.id, 'close', tellAgent);
    this.emit([{ event: { type: 'closed' }, seq: null }]);
    // A child is closed only where the agent grants it (no subagent capability does yet).
    const canClose = !this.subagent && Boolean(this.runtime.capabilities?.sessionCapabilities?.close);
    if (tellAgent && canClose && this.acpSessionId && this.runtime.connected) {
      // Not answered within 5 s: withdrawn ($/cancel_request), and the session closes here anyway.
      await this.runtime
        .request('session/close', { sessionId: this.acpSessionId }, { cancellationSignal: AbortSignal.timeout(5000), stopWaitingOnCancel: true })
        .catch(() => {});
    }
    this.setStatus('closed', why);
    this.status = 'closed';
    this.queue = [];
    this.turn = null;
    if (this.acpSessionId) this.runtime.unbind(this.acpSessionId);
    await this.host.terminals.releaseSession(this.id);
    this.host.forgetSession(this.id);
  }
}
