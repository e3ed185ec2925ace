import type { StopReason } from '@agentclientprotocol/sdk';
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { forwardRef, memo, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { threadLength, toolCallIndex, type ThreadEntry, type ThreadState } from '@shared/acp-thread';
import type { TurnCheckpoint } from '@shared/contract/checkpoints';
import { TurnChanges } from '../checkpoints';
import { GitFork } from 'lucide-react';
import { StopMark, ThreadEntryView, WorkingRow } from './entries';
import { ThreadNavContext, type ThreadNav } from './thread-nav';
import { readableToolTitle } from '@shared/mcp-tool-name';

/**
 * The list's rows, by index, without building them: the thread's entries in order (held or not: see
 * SessionController.entryAt), a stop mark after the entries of a turn that stopped other than by
 * end_turn, and the working row while a turn runs. Keys are numbers (entry index; stop marks below 0) so
 * that a row keeps its measured height when its entry arrives and as the list grows.
 */
type Row = { type: 'entry'; index: number } | { type: 'stop'; reason: StopReason } | { type: 'working'; cancelling: boolean };

const WORKING_KEY = Number.MIN_SAFE_INTEGER;

class Rows {
  /** Row index of each stop mark (ascending). */
  private readonly markRows: number[];
  readonly count: number;

  constructor(
    readonly total: number,
    private readonly marks: ThreadState['stopMarks'],
    private readonly working: { cancelling: boolean } | null,
  ) {
    this.markRows = marks.map((m, i) => Math.min(m.afterEntries, total) + i);
    this.count = total + marks.length + (working ? 1 : 0);
  }

  /** Stop marks in rows before `row`. */
  private marksBefore(row: number): number {
    let lo = 0;
    let hi = this.markRows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.markRows[mid]! < row) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  at(row: number): Row {
    const m = this.marksBefore(row);
    if (m < this.markRows.length && this.markRows[m] === row) return { type: 'stop', reason: this.marks[m]!.stopReason };
    const index = row - m;
    if (index >= this.total) return { type: 'working', cancelling: this.working?.cancelling ?? false };
    return { type: 'entry', index };
  }

  /** The entry shown by `row`, or -1 (a stop mark, the working row). Called for every row as the list is laid out: no allocation. */
  entryIndex(row: number): number {
    const m = this.markRows.length === 0 ? 0 : this.marksBefore(row);
    if (m < this.markRows.length && this.markRows[m] === row) return -1;
    const index = row - m;
    return index >= this.total ? -1 : index;
  }

  key(row: number): number {
    const m = this.markRows.length === 0 ? 0 : this.marksBefore(row);
    if (m < this.markRows.length && this.markRows[m] === row) return -1 - m;
    const index = row - m;
    return index >= this.total ? WORKING_KEY : index;
  }

  /** The row of entry `index`. */
  rowOf(index: number): number {
    let m = 0;
    while (m < this.markRows.length && this.markRows[m]! - m <= index) m++;
    return index + m;
  }
}

/**
 * A turn's changes (its checkpoints) are shown under the turn's last entry: by entry index. A turn is placed
 * once every entry from its prompt to the next prompt is held (earlier entries arrive as they come into view).
 */
function changesByEntry(entryAt: (i: number) => ThreadEntry | undefined, total: number, running: { promptId: string | null } | null, checkpoints: ReadonlyMap<string, TurnCheckpoint[]>): Map<number, TurnCheckpoint[]> {
  const out = new Map<number, TurnCheckpoint[]>();
  if (checkpoints.size === 0) return out;
  let turnPrompt: string | null = null;
  const close = (last: number) => {
    const turns = turnPrompt !== null ? checkpoints.get(turnPrompt) : undefined;
    if (turns && last >= 0) out.set(last, turns);
    turnPrompt = null;
  };
  for (let i = 0; i < total; i++) {
    const entry = entryAt(i);
    if (!entry) {
      turnPrompt = null;
      continue;
    }
    if (entry.kind === 'user_message' && entry.promptId !== null) {
      close(i - 1);
      turnPrompt = entry.promptId;
    }
  }
  if (!(running && running.promptId === turnPrompt)) close(total - 1);
  return out;
}

const NO_CHECKPOINTS: ReadonlyMap<string, TurnCheckpoint[]> = new Map();
/** Entries above the first one in view fetched with it (the wheel is going up). */
const OVERFETCH = 100;

/** Typical heights of the common kinds; any other kind (a new one included) starts at ENTRY_ESTIMATE. */
const ESTIMATE: Partial<Record<ThreadEntry['kind'], number>> = {
  user_message: 56,
  agent_message: 90,
  thought: 34,
  tool_call: 46,
  plan: 110,
  notice: 44,
  compaction: 34,
  turn_error: 70,
  elicitation: 160,
};
const ENTRY_ESTIMATE = 60;
/** An entry not held yet (it is fetched when it comes into view). */
const UNKNOWN_ESTIMATE = 90;

function estimate(isEntry: boolean, entry: ThreadEntry | undefined): number {
  if (!isEntry) return 32;
  return entry ? entryEstimate(entry) : UNKNOWN_ESTIMATE;
}

/** The height an entry's row likely takes before it is measured (live and stored threads). */
export function entryEstimate(entry: ThreadEntry): number {
  if (entry.kind === 'tool_call' && entry.content.some((c) => c.type === 'diff' || c.type === 'terminal')) return 360;
  return ESTIMATE[entry.kind] ?? ENTRY_ESTIMATE;
}

interface RowProps {
  row: Row;
  entry: ThreadEntry | undefined;
  sessionId: string;
  cwd: string | null;
  live: boolean;
  onRestart: (() => void) | null;
  changes: TurnCheckpoint[] | undefined;
  /** "Fork from here" under this entry. */
  fork: Fork | null;
}

type Fork = { index: number; pending: boolean; run(): void };

/** One row's content; re-rendered only when its own entry (or its place) changes. */
const RowView = memo(function RowView({ row, entry, sessionId, cwd, live, onRestart, changes, fork }: RowProps) {
  if (row.type === 'stop') return <StopMark reason={row.reason} />;
  if (row.type === 'working') return <WorkingRow cancelling={row.cancelling} sessionId={sessionId} />;
  if (!entry) return <div className="thread-pending" aria-busy="true" data-testid="thread-pending" />;
  return (
    <>
      <ThreadEntryView entry={entry} sessionId={sessionId} cwd={cwd} live={live} onRestart={onRestart} />
      {fork && (
        <div className="fork-action">
          <button
            className="link-button"
            onClick={fork.run}
            disabled={fork.pending}
            title="A new session, in a new tab, that goes on from this conversation. The agent forks the whole conversation so far (ACP has no fork point), so this is offered on the last prompt."
            data-testid="fork-from-here"
          >
            <GitFork size={12} aria-hidden /> {fork.pending ? 'Forking…' : 'Fork from here'}
          </button>
        </div>
      )}
      {changes && <TurnChanges sessionId={sessionId} turns={changes} />}
    </>
  );
}, sameRow);

function sameRow(a: RowProps, b: RowProps): boolean {
  return (
    a.entry === b.entry &&
    a.live === b.live &&
    a.changes === b.changes &&
    a.fork === b.fork &&
    a.sessionId === b.sessionId &&
    a.cwd === b.cwd &&
    a.onRestart === b.onRestart &&
    a.row.type === b.row.type &&
    (a.row.type !== 'stop' || (b.row.type === 'stop' && a.row.reason === b.row.reason)) &&
    (a.row.type !== 'working' || (b.row.type === 'working' && a.row.cancelling === b.row.cancelling))
  );
}

export interface ThreadHandle {
  scrollToBottom(): void;
  scrollToEntry(index: number): void;
}

interface ThreadProps {
  thread: ThreadState;
  /** The thread's entry at an index, held or not (entries before thread.firstIndex come page by page). */
  entryAt: (index: number) => ThreadEntry | undefined;
  /** Entries [from, to] are in view: fetch those not held. */
  ensure: (from: number, to: number) => void;
  /** Changes when entries before thread.firstIndex arrive. */
  pages: number;
  sessionId: string;
  cwd: string | null;
  active: boolean;
  onRestart: (() => void) | null;
  /** Checkpoints of each turn, by prompt id: shown under the turn. */
  checkpoints?: ReadonlyMap<string, TurnCheckpoint[]>;
  /** Offers "Fork from here" under the entry at this index (the last prompt). */
  fork?: Fork | null;
}

/**
 * The conversation, virtualized (only the rows in view are mounted, and only the entries in view need to be
 * held, so a 100,000-entry session opens at once). While the view is at the bottom it stays there as the
 * agent writes.
 */
export const Thread = forwardRef<ThreadHandle, ThreadProps>(function Thread({ thread, entryAt, ensure, pages, sessionId, cwd, active, onRestart, checkpoints = NO_CHECKPOINTS, fork = null }, ref) {
  const total = threadLength(thread);
  const running = thread.turn.running;
  const cancelling = thread.turn.cancelRequested;
  const rows = useMemo(() => new Rows(total, thread.stopMarks ?? [], running ? { cancelling } : null), [total, thread.stopMarks, running, cancelling]);
  const runningPrompt = running ? thread.turn.promptId : undefined;
  // Recomputed when entries are added or arrive, not for every streamed chunk.
  const changes = useMemo(
    () => changesByEntry(entryAt, total, runningPrompt === undefined ? null : { promptId: runningPrompt }, checkpoints),
    [entryAt, total, runningPrompt, checkpoints, pages, thread.firstIndex],
  );
  // Read through refs so that the virtualizer's options stay the same functions while the agent writes
  // (a changed getItemKey makes it lay out every row again).
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const entryAtRef = useRef(entryAt);
  entryAtRef.current = entryAt;
  const getItemKey = useCallback((i: number) => rows.key(i), [rows]);
  const estimateSize = useCallback((i: number) => {
    const index = rowsRef.current.entryIndex(i);
    return estimate(index >= 0, index >= 0 ? entryAtRef.current(index) : undefined);
  }, []);
  const scroller = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  /** A scroll we caused and have not seen the event of yet. */
  const ownScroll = useRef(false);
  /**
   * Where the view's top is, as far as we know without asking the layout: where our own scroll to the bottom
   * put it, or where the last scroll event found it.
   */
  const knownTop = useRef(-1);
  const activeRef = useRef(active);
  activeRef.current = active;
  const virtualizerRef = useRef<Virtualizer<HTMLDivElement, Element> | null>(null);
  /**
   * Keeps the view at the bottom without reading the layout: the bottom is the list's size (the virtualizer's,
   * from its measurements) less the view's height (its ResizeObserver's). Reading scrollHeight here, after
   * the frame's writes, laid the page out once more in every frame an agent writes (the page's profile of
   * `npm run bench -- sessions30`). Nothing is written when the view is already there; when it is not, the
   * scroll asks for the end of the list and the browser clamps it to the bottom.
   */
  const stick = useCallback((force = false) => {
    const el = scroller.current;
    const v = virtualizerRef.current;
    if (!el || !v) return;
    const total = v.getTotalSize();
    const bottom = Math.max(0, total - (v.scrollRect?.height ?? 0));
    if (!force && Math.abs(knownTop.current - bottom) < 1) return;
    knownTop.current = bottom;
    ownScroll.current = true;
    el.scrollTop = total;
  }, []);

  const lastTotal = useRef(0);
  const pendingAdjust = useRef(0);
  const virtualizer = useVirtualizer({
    count: rows.count,
    getScrollElement: () => scroller.current,
    estimateSize,
    getItemKey,
    overscan: 6,
    paddingStart: 12,
    paddingEnd: 16,
    // A scroll that changes the rows in view re-renders inside its scroll event, in the same frame (deferred,
    // it was one more render task and layout after every streamed frame's paint: measured with
    // `npm run bench -- agents10`, frame p95 17–19 → 13 ms, write → paint p95 69–73 → 56–58 ms).
    useFlushSync: true,
    // A row that grows (the streamed message, every frame an agent writes) moves the rows below it and the
    // list's height by direct style writes in the same frame, not by one more React render after the paint
    // (agents10, 7 A/B pairs: write → paint p95 mean 49.6 vs 59.3 ms; frame p95 unchanged; noisy machine).
    directDomUpdates: true,
    directDomUpdatesMode: 'position',
    // …and a list that grew keeps to the bottom if it was there (a scroll alone changes no size: the user's
    // own scroll is never pulled back here).
    onChange: (v) => {
      const adjust = pendingAdjust.current;
      pendingAdjust.current = 0;
      const el = scroller.current;
      if (adjust !== 0 && el && !stuck.current) el.scrollTop += adjust;
      const total = v.getTotalSize();
      if (total === lastTotal.current) return;
      lastTotal.current = total;
      if (stuck.current && activeRef.current) stick();
    },
  });
  virtualizerRef.current = virtualizer;
  // Rows above the view that were measured other than estimated move the view by the difference, once per
  // batch of measurements (onChange above): the virtualizer's own correction lays out every row after the
  // measured one again for each row measured, which over 100,000 rows took most of a frame scrolling up.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, delta, v) => {
    const offset = v.scrollOffset ?? 0;
    const firstMeasure = !v.itemSizeCache.has(item.key);
    const above = firstMeasure ? item.start < offset : item.start + item.size <= offset && v.scrollDirection !== 'backward';
    if (above) pendingAdjust.current += delta;
    return false;
  };

  useImperativeHandle(
    ref,
    () => ({
      scrollToBottom() {
        stuck.current = true;
        setAtBottom(true);
        stick(true);
      },
      scrollToEntry(index: number) {
        if (index >= 0 && index < rows.total) virtualizer.scrollToIndex(rows.rowOf(index), { align: 'center' });
      },
    }),
    [rows, virtualizer, stick],
  );

  // After every render (new rows, rows measured taller): keep to the bottom if we were there. A hidden tab
  // does nothing here: it goes to the bottom when it is shown (once its view has a size again).
  useLayoutEffect(() => {
    if (stuck.current && active) stick();
  });
  useLayoutEffect(() => {
    if (active && stuck.current) requestAnimationFrame(() => stick(true));
  }, [active, stick]);

  /** Where the last scroll event left the view: a scroll that went up is the user leaving the bottom. */
  const lastTop = useRef(0);
  const onScroll = () => {
    const el = scroller.current;
    // Our own scroll to the bottom (every frame an agent writes): measuring here would lay the page out
    // once more per frame. The user's scrolls are measured (and wheel and keys leave the bottom at once).
    const own = ownScroll.current;
    ownScroll.current = false;
    if (!el) return;
    const top = el.scrollTop;
    if (el.clientHeight === 0) return;
    knownTop.current = top;
    const wentUp = top < lastTop.current - 0.5;
    lastTop.current = top;
    if (own && stuck.current) return;
    const near = el.scrollHeight - top - el.clientHeight < 48;
    // Following: only a scroll that leaves the bottom stops it (the browser's own clamp when the list
    // shrinks goes up, and keeps following). Not following (a wheel or key went up): only a scroll of the
    // user's back down to the bottom follows again. A smooth wheel scroll up arrives in steps, the first still
    // near the bottom; when it comes in one event with our last scroll to the bottom (the list grew more than
    // that step went up), it looks like a scroll down, and following again would pull the user back.
    const bottom = stuck.current ? near : near && !wentUp && !own;
    stuck.current = bottom;
    if (bottom !== atBottom) setAtBottom(bottom);
  };
  const onWheel = (e: React.WheelEvent) => {
    // Scrolling up by hand leaves the bottom at once (before the next chunk pulls the view down again).
    if (e.deltaY < 0) stuck.current = false;
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'PageUp' || e.key === 'ArrowUp' || e.key === 'Home') stuck.current = false;
  };

  const nav = useMemo<ThreadNav>(
    () => ({
      toolTitle(toolCallId) {
        const e = entryAt(toolCallIndex(thread, toolCallId) ?? -1);
        return e?.kind === 'tool_call' ? readableToolTitle(e.title || 'Tool call') : null;
      },
      showTool(toolCallId) {
        const index = toolCallIndex(thread, toolCallId);
        if (index === undefined || index >= rows.total) return;
        stuck.current = false;
        virtualizer.scrollToIndex(rows.rowOf(index), { align: 'center' });
      },
    }),
    [entryAt, thread, rows, virtualizer],
  );

  const items = virtualizer.getVirtualItems();
  const lastEntryIndex = total - 1;
  // The entries in view (and overscan) that are not held yet are fetched.
  let firstShown = -1;
  let lastShown = -1;
  for (const item of items) {
    const row = rows.at(item.index);
    if (row.type !== 'entry' || entryAt(row.index)) continue;
    if (firstShown < 0) firstShown = row.index;
    lastShown = row.index;
  }
  useEffect(() => {
    if (firstShown >= 0) ensure(Math.max(0, firstShown - OVERFETCH), lastShown);
    // Again when pages arrive or are dropped (a page dropped while in view is fetched again).
  }, [ensure, firstShown, lastShown, pages]);

  return (
    <ThreadNavContext.Provider value={nav}>
    <div className="thread-wrap">
      <div className="thread" ref={scroller} onScroll={onScroll} onWheel={onWheel} onKeyDown={onKeyDown} data-testid="thread" role="log" aria-live="off">
        {rows.count === 0 && <div className="thread-empty muted">Say what you want done. Type @ to mention a file, / for the agent’s commands.</div>}
        <div className="thread-inner" ref={virtualizer.containerRef}>
          {items.map((item) => {
            const row = rows.at(item.index);
            const index = row.type === 'entry' ? row.index : -1;
            return (
              <div key={item.key} className="thread-row" data-index={item.index} ref={virtualizer.measureElement}>
                <RowView
                  row={row}
                  entry={index >= 0 ? entryAt(index) : undefined}
                  sessionId={sessionId}
                  cwd={cwd}
                  live={running && index === lastEntryIndex}
                  onRestart={onRestart}
                  changes={index >= 0 ? changes.get(index) : undefined}
                  fork={fork && index === fork.index ? fork : null}
                />
              </div>
            );
          })}
        </div>
      </div>
      {!atBottom && (
        <button
          className="jump-bottom"
          onClick={() => {
            stuck.current = true;
            setAtBottom(true);
            stick(true);
          }}
        >
          ↓ Latest
        </button>
      )}
    </div>
    </ThreadNavContext.Provider>
  );
});
