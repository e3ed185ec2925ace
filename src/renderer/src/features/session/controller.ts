import { useEffect, useState, useSyncExternalStore } from 'react';
import { applyEvents, createThread, threadLength, toolIndexUpTo, type ThreadEntry, type ThreadEvent, type ThreadState } from '@shared/acp-thread';
import type { PayloadOf } from '@shared/contract';
import type { PermissionRequestInfo, QueueItem, SessionInfo } from '@shared/contract/sessions';
import type { Api } from '../../ipc/client';

export type SessionWarning = PayloadOf<'session.warning'>;

export interface SessionView {
  loading: boolean;
  loadError: string | null;
  /** The session is not live (it ended, or Switchboard restarted): its stored transcript is what remains. */
  ended: boolean;
  session: SessionInfo | null;
  thread: ThreadState;
  queue: readonly QueueItem[];
  /** What the queue waits for before its first prompt goes (a worktree's setup command), or null. */
  queueWaitingFor: string | null;
  /** Pending permission requests, oldest first. */
  permissions: readonly PermissionRequestInfo[];
  warnings: readonly SessionWarning[];
  /** A turn ended while the tab was not active (cleared when it becomes active). */
  unseenDone: boolean;
  /** Bumped when pages of the thread's earlier entries (before thread.firstIndex) arrive or are dropped. */
  pages: number;
}

/** One folded event of a session.update batch. */
type UpdateItem = PayloadOf<'session.update'>['events'][number];

const MAX_WARNINGS = 50;
/** When the page is hidden, animation frames stop: fold on a timer instead. */
const FALLBACK_FLUSH_MS = 250;
/**
 * A tab out of view (not its pane's active tab) keeps its updates raw, in arrival order, and folds them when it
 * is shown (setActive): a hidden session costs the page a push per update, not a fold, a render or a timer.
 * It stays live meanwhile (status, permissions, queue and warnings are applied at once, elicitations
 * announced). Past this many waiting updates (about a minute and a half of a 200/s stream) it folds them
 * in the page's idle time, still without rendering, so that a tab left hidden for hours holds a thread, not
 * every chunk that built it.
 */
export const HIDDEN_MAX_PENDING = 20_000;
/** …and that idle fold runs at the latest this long after it was asked for, however busy the page is. */
const HIDDEN_IDLE_TIMEOUT_MS = 1000;
/** Folds of a visible session's stream are at least this far apart (60 Hz frames always are). */
const MIN_FOLD_MS = 12;
/** Entries the snapshot brings (the thread's tail: what the view shows first, at its bottom). */
const TAIL = 100;
/** Earlier entries are fetched in pages of this many as they come into view… */
export const PAGE = 200;
/** …and at most this many pages are kept (the least recently shown are dropped, and fetched again if need be). */
const MAX_PAGES = 50;
/** Misses remembered (see onMissed); older ones are summed up in a watermark. */
const MAX_MISSES = 256;

interface Page {
  entries: readonly ThreadEntry[];
  /** sessions.entries' n: the last event folded into these entries. */
  n: number;
}

/**
 * The renderer's side of one live session: attaches with sessions.state, then folds session.update
 * events (n > snapshot.n) into the acp-thread model in batches, once per animation frame. Other events
 * (status, permissions, queue, warnings) are small and applied at once.
 * The snapshot holds the thread's tail (TAIL entries); the view asks for earlier ones (ensure) as they come
 * into view, and they are fetched in pages (sessions.entries) and kept aside, read-only: an event that
 * changes one of them (an old tool call updated…) drops its page, fetched again when shown.
 */
export class SessionController {
  private view: SessionView;
  private readonly listeners = new Set<() => void>();
  private readonly offs: Array<() => void> = [];
  /** `n` of the last folded update; null until the snapshot arrived. */
  private n: number | null = null;
  private pending: UpdateItem[] = [];
  private frame: number | null = null;
  /** The animation frame time of the last fold in a frame. */
  private foldFrameTime = Number.NEGATIVE_INFINITY;
  /** The snapshot's toolIndex is the tail's only, and the whole one has not arrived yet. */
  private toolIndexPending = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private idle: number | null = null;
  private active = false;
  /** The thread was folded while the tab was hidden, without telling its view (told when it is shown). */
  private unseenThread = false;
  private loadSeq = 0;
  /** Pages of the entries before thread.firstIndex, by page number, least recently shown first. */
  private readonly pages = new Map<number, Page>();
  private readonly inflight = new Set<number>();
  /** Entries [from, to) changed by the fold up to event n without being held: pages older than n are stale. */
  private misses: Array<{ from: number; to: number; n: number }> = [];
  /** Every page older than this is stale (misses forgotten past MAX_MISSES). */
  private missFloor = -1;
  refs = 0;
  /** Called for a new permission request and for a finished turn (desktop notifications). */
  onAttention:
    | ((what: { kind: 'permission'; info: PermissionRequestInfo } | { kind: 'elicitation'; requestId: string; mode: 'form' | 'url'; message: string } | { kind: 'done' | 'failed'; session: SessionInfo }) => void)
    | null = null;

  constructor(
    private readonly api: Api,
    readonly sessionId: string,
  ) {
    this.view = {
      loading: true,
      loadError: null,
      ended: false,
      session: null,
      thread: createThread(),
      queue: [],
      queueWaitingFor: null,
      permissions: [],
      warnings: [],
      unseenDone: false,
      pages: 0,
    };
    const id = sessionId;
    this.offs.push(
      api.on('session.update', (p) => {
        if (p.sessionId !== id) return;
        for (const item of p.events) {
          this.pending.push(item);
          if (item.event.type === 'elicitation') this.onAttention?.({ kind: 'elicitation', requestId: item.event.requestId, mode: item.event.request.mode, message: item.event.request.message });
        }
        this.schedule();
      }),
      api.on('session.state', (s) => {
        if (s.id !== id) return;
        const prev = this.view.session;
        const wasBusy = prev?.status === 'working' || prev?.status === 'awaiting_permission';
        let unseenDone = this.view.unseenDone;
        if (wasBusy && s.status === 'idle') {
          if (!this.active) unseenDone = true;
          this.onAttention?.({ kind: 'done', session: s });
        }
        if (prev && prev.status !== 'failed' && s.status === 'failed') this.onAttention?.({ kind: 'failed', session: s });
        this.set({ session: s, unseenDone, ended: s.status === 'closed' });
      }),
      api.on('session.permission', (info) => {
        if (info.sessionId !== id) return;
        if (this.view.permissions.some((p) => p.requestId === info.requestId)) return;
        this.set({ permissions: [...this.view.permissions, info] });
        this.onAttention?.({ kind: 'permission', info });
      }),
      api.on('session.permissionResolved', (r) => {
        if (r.sessionId !== id) return;
        this.set({ permissions: this.view.permissions.filter((p) => p.requestId !== r.requestId) });
      }),
      api.on('session.queue', (q) => {
        if (q.sessionId === id) this.set({ queue: q.items, queueWaitingFor: q.waitingFor ?? null });
      }),
      api.on('session.warning', (w) => {
        const mine = w.sessionId === id || (w.sessionId === null && w.agentId === this.view.session?.agentId);
        if (mine) this.set({ warnings: [...this.view.warnings, w].slice(-MAX_WARNINGS) });
      }),
    );
    void this.load();
  }

  getView = (): SessionView => this.view;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(patch: Partial<SessionView>): void {
    this.view = { ...this.view, ...patch };
    this.unseenThread = false;
    for (const l of this.listeners) l();
  }

  setActive(active: boolean): void {
    this.active = active;
    if (!active) return;
    if (this.pending.length > 0 || this.timer !== null || this.idle !== null) this.flush();
    if (this.view.unseenDone || this.unseenThread) this.set({ unseenDone: false });
  }

  dismissWarnings(): void {
    this.set({ warnings: [] });
  }

  /** (Re)attaches: the snapshot replaces the thread; buffered updates newer than it are folded on top. */
  async load(): Promise<void> {
    const seq = ++this.loadSeq;
    const r = await this.api.call('sessions.state', { sessionId: this.sessionId, tail: TAIL });
    if (seq !== this.loadSeq) return;
    this.pages.clear();
    this.inflight.clear();
    this.misses = [];
    this.missFloor = -1;
    if (!r.ok) {
      this.n = null;
      this.set({ loading: false, loadError: r.error.message, ended: r.error.code === 'not_found' });
      return;
    }
    const snap = r.value;
    this.n = snap.n;
    this.set({
      loading: false,
      loadError: null,
      ended: false,
      session: snap.session,
      thread: snap.thread,
      queue: snap.queue,
      queueWaitingFor: snap.queueWaitingFor ?? null,
      permissions: snap.permissions,
      pages: this.view.pages + 1,
    });
    // The tail holds its own tool calls' index only: the rest comes next (the tail is shown meanwhile), and
    // updates wait for it (one may be for an earlier tool call).
    this.toolIndexPending = (snap.thread.firstIndex ?? 0) > 0;
    if (this.toolIndexPending) void this.loadToolIndex(seq, threadLength(snap.thread));
    else this.flush();
  }

  private async loadToolIndex(seq: number, length: number): Promise<void> {
    const r = await this.api.call('sessions.toolIndex', { sessionId: this.sessionId });
    if (seq !== this.loadSeq) return;
    if (!r.ok) {
      void this.load();
      return;
    }
    this.toolIndexPending = false;
    // As it was at the snapshot: tool calls added since come with the updates still to fold.
    const toolIndex = { ...toolIndexUpTo(r.value.toolIndex, length), ...this.view.thread.toolIndex };
    this.set({ thread: { ...this.view.thread, toolIndex } });
    this.flush();
  }

  /** The thread's entry at `index` (of the whole thread), if it is held; see ensure. */
  entryAt = (index: number): ThreadEntry | undefined => {
    const t = this.view.thread;
    const first = t.firstIndex ?? 0;
    if (index >= first) return t.entries[index - first];
    return this.pages.get(Math.floor(index / PAGE))?.entries[index % PAGE];
  };

  /** Entries [from, to] are in view: fetches those not held (and keeps their pages as the latest shown). */
  ensure = (from: number, to: number): void => {
    const first = this.view.thread.firstIndex ?? 0;
    if (this.n === null || from >= first) return;
    const last = Math.min(to, first - 1);
    for (let p = Math.floor(Math.max(0, from) / PAGE); p <= Math.floor(last / PAGE); p++) {
      const page = this.pages.get(p);
      if (page) {
        // Most recently shown last (dropped last).
        this.pages.delete(p);
        this.pages.set(p, page);
      } else if (!this.inflight.has(p)) this.fetchPage(p);
    }
  };

  private fetchPage(p: number): void {
    const seq = this.loadSeq;
    this.inflight.add(p);
    void this.api.call('sessions.entries', { sessionId: this.sessionId, from: p * PAGE, count: PAGE }).then((r) => {
      if (seq !== this.loadSeq) return;
      this.inflight.delete(p);
      if (!r.ok) return;
      const { n, entries } = r.value;
      // Changed by events folded since it was read: read it again.
      if (this.isStale(p, n)) return this.fetchPage(p);
      this.pages.set(p, { entries, n });
      for (const old of this.pages.keys()) {
        if (this.pages.size <= MAX_PAGES) break;
        this.pages.delete(old);
      }
      this.set({ pages: this.view.pages + 1 });
    });
  }

  private isStale(p: number, n: number): boolean {
    if (n < this.missFloor) return true;
    const from = p * PAGE;
    return this.misses.some((m) => m.n > n && m.from < from + PAGE && m.to > from);
  }

  /** The fold up to event n changed entries [from, to) that the thread does not hold: their pages are stale. */
  private onMissed(from: number, to: number, n: number): boolean {
    this.misses.push({ from, to, n });
    if (this.misses.length > MAX_MISSES) this.missFloor = Math.max(this.missFloor, this.misses.shift()!.n);
    let dropped = false;
    for (const [p, page] of this.pages) {
      if (page.n < n && p * PAGE < to && (p + 1) * PAGE > from) {
        this.pages.delete(p);
        dropped = true;
      }
    }
    return dropped;
  }

  private schedule(): void {
    if (this.frame !== null || this.timer !== null || this.idle !== null || this.n === null) return;
    if (!this.active) {
      if (this.pending.length < HIDDEN_MAX_PENDING) return;
      if (typeof requestIdleCallback === 'function') this.idle = requestIdleCallback(() => this.flush(), { timeout: HIDDEN_IDLE_TIMEOUT_MS });
      else this.timer = setTimeout(() => this.flush(), 0);
      return;
    }
    const onFrame = (frameTime: number) => {
      // A display faster than 60 Hz: the stream is folded at most every MIN_FOLD_MS of frame time (text gains
      // nothing from 120 folds a second, and the frames in between stay free for typing).
      if (frameTime - this.foldFrameTime < MIN_FOLD_MS) {
        this.frame = requestAnimationFrame(onFrame);
        return;
      }
      this.foldFrameTime = frameTime;
      this.flush();
    };
    this.frame = requestAnimationFrame(onFrame);
    this.timer = setTimeout(() => this.flush(), FALLBACK_FLUSH_MS);
  }

  /** Folds the buffered updates in one go (one React render for the whole frame). */
  flush(): void {
    this.cancelScheduled();
    if (this.n === null || this.toolIndexPending || this.pending.length === 0) return;
    const base = this.n;
    const batch = this.pending.filter((p) => p.n > base).sort((a, b) => a.n - b.n);
    this.pending = [];
    if (batch.length === 0) return;
    if (batch[0]!.n !== base + 1) {
      // Missed events (a reconnect, a dropped frame): attach again from a fresh snapshot.
      this.pending = batch;
      this.n = null;
      void this.load();
      return;
    }
    const segment: ThreadEvent[] = [];
    let last = base;
    for (const p of batch) {
      if (p.n === last) continue; // delivered twice
      if (p.n !== last + 1) break;
      last = p.n;
      segment.push(p.event);
    }
    let dropped = false;
    const thread = applyEvents(this.view.thread, segment, (from, to) => {
      if (this.onMissed(from, to, last)) dropped = true;
    });
    this.n = last;
    const rest = batch.filter((p) => p.n > last);
    if (rest.length > 0) {
      this.pending = rest;
      this.n = null;
      void this.load();
    }
    const pages = dropped ? this.view.pages + 1 : this.view.pages;
    if (this.active) this.set({ thread, pages });
    else {
      // Out of view: keep the thread current without re-rendering a tab nobody sees.
      this.view = { ...this.view, thread, pages };
      this.unseenThread = true;
    }
  }

  private cancelScheduled(): void {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.idle !== null) cancelIdleCallback(this.idle);
    this.frame = null;
    this.timer = null;
    this.idle = null;
  }

  dispose(): void {
    for (const off of this.offs) off();
    this.cancelScheduled();
    this.listeners.clear();
  }
}

const controllers = new Map<string, SessionController>();

function controllerFor(api: Api, sessionId: string): SessionController {
  let c = controllers.get(sessionId);
  if (!c) {
    c = new SessionController(api, sessionId);
    controllers.set(sessionId, c);
  }
  return c;
}

export function acquireController(api: Api, sessionId: string): SessionController {
  const c = controllerFor(api, sessionId);
  c.refs++;
  return c;
}

export function releaseController(c: SessionController): void {
  if (--c.refs > 0) return;
  if (controllers.get(c.sessionId) === c) controllers.delete(c.sessionId);
  c.dispose();
}

export function peekController(sessionId: string): SessionController | undefined {
  return controllers.get(sessionId);
}

export function useSessionView(c: SessionController): SessionView {
  return useSyncExternalStore(c.subscribe, c.getView);
}

/** The controller of a session, held for the component's lifetime (shared by every view of the session). */
export function useController(api: Api, sessionId: string): SessionController {
  const [c, setC] = useState(() => controllerFor(api, sessionId));
  useEffect(() => {
    const held = acquireController(api, sessionId);
    setC(held);
    return () => releaseController(held);
  }, [api, sessionId]);
  return c;
}
