import type { StopReason } from '@agentclientprotocol/sdk';
import { useVirtualizer } from '@tanstack/react-virtual';
import { forwardRef, useCallback, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ThreadEntry, ThreadState } from '@shared/acp-thread';
import type { TurnCheckpoint } from '@shared/contract/checkpoints';
import { TurnChanges } from '../checkpoints';
import { GitFork } from 'lucide-react';
import { StopMark, ThreadEntryView, WorkingRow } from './entries';
import { ThreadNavContext, type ThreadNav } from './thread-nav';

type Row =
  | { key: string; type: 'entry'; entry: ThreadEntry; index: number }
  | { key: string; type: 'stop'; reason: StopReason }
  | { key: string; type: 'working'; cancelling: boolean }
  | { key: string; type: 'changes'; turns: TurnCheckpoint[] };

function buildRows(thread: ThreadState, checkpoints: ReadonlyMap<string, TurnCheckpoint[]>): Row[] {
  const rows: Row[] = [];
  const marks = thread.stopMarks ?? [];
  let m = 0;
  const entries = thread.entries;
  // A turn's changes (its checkpoints) follow the turn's last entry.
  let turnPrompt: string | null = null;
  const closeTurn = () => {
    const turns = turnPrompt !== null ? checkpoints.get(turnPrompt) : undefined;
    if (turns) rows.push({ key: `changes-${turnPrompt}`, type: 'changes', turns });
    turnPrompt = null;
  };
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.kind === 'user_message' && entry.promptId !== null) closeTurn();
    while (m < marks.length && marks[m]!.afterEntries <= i) {
      rows.push({ key: `stop-${m}`, type: 'stop', reason: marks[m]!.stopReason });
      m++;
    }
    rows.push({ key: entry.id, type: 'entry', entry, index: i });
    if (entry.kind === 'user_message' && entry.promptId !== null) turnPrompt = entry.promptId;
  }
  while (m < marks.length) {
    rows.push({ key: `stop-${m}`, type: 'stop', reason: marks[m]!.stopReason });
    m++;
  }
  if (!(thread.turn.running && thread.turn.promptId === turnPrompt)) closeTurn();
  if (thread.turn.running) rows.push({ key: 'working', type: 'working', cancelling: thread.turn.cancelRequested });
  return rows;
}

const NO_CHECKPOINTS: ReadonlyMap<string, TurnCheckpoint[]> = new Map();

const ESTIMATE: Record<ThreadEntry['kind'], number> = {
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

function estimate(row: Row | undefined): number {
  if (!row) return 40;
  if (row.type !== 'entry') return 32;
  if (row.entry.kind === 'tool_call' && row.entry.content.some((c) => c.type === 'diff' || c.type === 'terminal')) return 360;
  return ESTIMATE[row.entry.kind];
}

export interface ThreadHandle {
  scrollToBottom(): void;
  scrollToEntry(index: number): void;
}

interface ThreadProps {
  thread: ThreadState;
  sessionId: string;
  cwd: string | null;
  active: boolean;
  onRestart: (() => void) | null;
  /** Checkpoints of each turn, by prompt id: shown under the turn. */
  checkpoints?: ReadonlyMap<string, TurnCheckpoint[]>;
  /** Offers "Fork from here" under the entry at this index (the last prompt). */
  fork?: { index: number; pending: boolean; run(): void } | null;
}

/**
 * The conversation, virtualized (only the rows in view are mounted, so a 10,000-entry session opens at
 * once). While the view is at the bottom it stays there as the agent writes.
 */
export const Thread = forwardRef<ThreadHandle, ThreadProps>(function Thread({ thread, sessionId, cwd, active, onRestart, checkpoints = NO_CHECKPOINTS, fork = null }, ref) {
  const rows = useMemo(() => buildRows(thread, checkpoints), [thread, checkpoints]);
  const scroller = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  /** A scroll we caused and have not seen the event of yet. */
  const ownScroll = useRef(false);
  const stick = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const target = el.scrollHeight - el.clientHeight;
    if (Math.abs(el.scrollTop - target) < 1) return;
    ownScroll.current = true;
    el.scrollTop = target;
  }, []);

  const lastTotal = useRef(0);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => estimate(rows[i]),
    getItemKey: (i) => rows[i]?.key ?? i,
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
      const total = v.getTotalSize();
      if (total === lastTotal.current) return;
      lastTotal.current = total;
      if (stuck.current) stick();
    },
  });

  useImperativeHandle(
    ref,
    () => ({
      scrollToBottom() {
        stuck.current = true;
        setAtBottom(true);
        stick();
      },
      scrollToEntry(index: number) {
        const row = rows.findIndex((r) => r.type === 'entry' && r.index === index);
        if (row >= 0) virtualizer.scrollToIndex(row, { align: 'center' });
      },
    }),
    [rows, virtualizer, stick],
  );

  // After every render (new rows, rows measured taller): keep to the bottom if we were there.
  useLayoutEffect(() => {
    if (stuck.current) stick();
  });
  useLayoutEffect(() => {
    if (active && stuck.current) requestAnimationFrame(stick);
  }, [active, stick]);

  const onScroll = () => {
    const el = scroller.current;
    // Our own scroll to the bottom (every frame an agent writes): measuring here would lay the page out
    // once more per frame. The user's scrolls are measured (and wheel and keys leave the bottom at once).
    const own = ownScroll.current;
    ownScroll.current = false;
    if (!el || el.clientHeight === 0 || (own && stuck.current)) return;
    const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
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
        const e = thread.entries[thread.toolIndex[toolCallId] ?? -1];
        return e?.kind === 'tool_call' ? e.title || 'Tool call' : null;
      },
      showTool(toolCallId) {
        const index = thread.toolIndex[toolCallId];
        const row = index === undefined ? -1 : rows.findIndex((r) => r.type === 'entry' && r.index === index);
        if (row < 0) return;
        stuck.current = false;
        virtualizer.scrollToIndex(row, { align: 'center' });
      },
    }),
    [thread.entries, thread.toolIndex, rows, virtualizer],
  );

  const items = virtualizer.getVirtualItems();
  const lastEntryIndex = thread.entries.length - 1;

  return (
    <ThreadNavContext.Provider value={nav}>
      <div className="thread-wrap">
        <div className="thread" ref={scroller} onScroll={onScroll} onWheel={onWheel} onKeyDown={onKeyDown} data-testid="thread" role="log" aria-live="off">
          {rows.length === 0 && <div className="thread-empty muted">Say what you want done. Type @ to mention a file, / for the agent’s commands.</div>}
          <div className="thread-inner" ref={virtualizer.containerRef}>
            {items.map((item) => {
              const row = rows[item.index]!;
              return (
                <div key={item.key} className="thread-row" data-index={item.index} ref={virtualizer.measureElement}>
                  {row.type === 'entry' ? (
                    <>
                      <ThreadEntryView entry={row.entry} sessionId={sessionId} cwd={cwd} live={thread.turn.running && row.index === lastEntryIndex} onRestart={onRestart} />
                      {fork && row.index === fork.index && (
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
                    </>
                  ) : row.type === 'stop' ? (
                    <StopMark reason={row.reason} />
                  ) : row.type === 'changes' ? (
                    <TurnChanges sessionId={sessionId} turns={row.turns} />
                  ) : (
                    <WorkingRow cancelling={row.cancelling} />
                  )}
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
              stick();
            }}
          >
            ↓ Latest
          </button>
        )}
      </div>
    </ThreadNavContext.Provider>
  );
});
