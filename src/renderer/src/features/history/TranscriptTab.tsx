import { ChevronDown, ChevronRight, Save } from 'lucide-react';
import type { StopReason } from '@agentclientprotocol/sdk';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { HistoryEntry, HistorySession } from '@shared/contract/history';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import type { Api } from '../../ipc/client';
import { useTabs } from '../../state/tabs';
import { byPrompt, TurnChanges, useTurnCheckpoints } from '../checkpoints';
import { entryEstimate, ForkLinks, StopMark, ThreadEntryView } from '../session';
import { MetaTerminalView } from '../../app/TerminalView';
import { VisibleText } from '../../ui/VisibleText';
import { deleteSessions, exportSession, pinSession } from './actions';
import { ContinuePanel } from './ContinuePanel';
import { formatDateTime, plural, relativeTime, shortPath, STOP_TEXT } from './format';
import { useAgentNames, useLiveSessions } from './hooks';
import { displayTitle, InlineRename } from './SessionRow';
import { syncHistory, useHistory } from './state';

/** Entries fetched first (around the target) and then per page as the view scrolls. */
const FIRST_PAGE = 60;
const PAGE = 200;
/** aroundSeq past any real message: the page at the end of the session. */
const END_SEQ = Number.MAX_SAFE_INTEGER;
const HIGHLIGHT_MS = 2500;

export interface TranscriptProps {
  sessionId: string;
  seq?: number;
  nonce?: number;
  agentId?: string;
  cwd?: string;
}

export function transcriptProps(props: Record<string, unknown>): TranscriptProps | null {
  if (typeof props.sessionId !== 'string') return null;
  return {
    sessionId: props.sessionId,
    ...(typeof props.seq === 'number' ? { seq: props.seq } : {}),
    ...(typeof props.nonce === 'number' ? { nonce: props.nonce } : {}),
    ...(typeof props.agentId === 'string' ? { agentId: props.agentId } : {}),
    ...(typeof props.cwd === 'string' ? { cwd: props.cwd } : {}),
  };
}

/** The session's row of the history list (found through its project and agent group), or null once deleted. */
function useSessionMeta(api: Api, p: TranscriptProps): { session: HistorySession | null; deleted: boolean; loaded: boolean } {
  const version = useHistory((s) => s.version);
  const [state, setState] = useState<{ session: HistorySession | null; deleted: boolean; loaded: boolean }>({ session: null, deleted: false, loaded: false });
  useEffect(() => syncHistory(api), [api]);
  useEffect(() => {
    let stale = false;
    const scope = { ...(p.agentId ? { agentIds: [p.agentId] } : {}), ...(p.cwd ? { projects: [p.cwd] } : {}), limit: 1000 };
    void (async () => {
      const r = await api.call('history.list', scope);
      if (stale || !r.ok) return;
      const found = r.value.sessions.find((s) => s.id === p.sessionId);
      if (found) return setState({ session: found, deleted: false, loaded: true });
      const d = await api.call('history.list', { ...scope, deleted: true });
      if (stale) return;
      const gone = d.ok ? d.value.sessions.find((s) => s.id === p.sessionId) : undefined;
      setState({ session: gone ?? null, deleted: Boolean(gone), loaded: true });
    })();
    return () => {
      stale = true;
    };
  }, [api, p.sessionId, p.agentId, p.cwd, version]);
  return state;
}

interface Loaded {
  total: number;
  /** Bumped whenever entries arrive. */
  version: number;
  error: string | null;
  ready: boolean;
}

/** The transcript's entries by index, fetched in pages as they come into view. */
function useEntries(api: Api, sessionId: string, seq: number | undefined, nonce: number | undefined) {
  const entries = useRef<Array<HistoryEntry | undefined>>([]);
  const inflight = useRef(new Set<number>());
  const [loaded, setLoaded] = useState<Loaded>({ total: 0, version: 0, error: null, ready: false });
  const [target, setTarget] = useState<{ index: number; align: 'center' | 'end'; highlight: boolean; n: number } | null>(null);
  const generation = useRef(0);

  const store = (offset: number, page: readonly HistoryEntry[], total: number) => {
    const arr = entries.current;
    if (arr.length !== total) arr.length = total;
    page.forEach((e, i) => {
      if (offset + i < total) arr[offset + i] = e;
    });
  };

  useEffect(() => {
    const gen = ++generation.current;
    inflight.current.clear();
    void (async () => {
      const r = await api.call('history.entries', { sessionId, limit: FIRST_PAGE, aroundSeq: seq ?? END_SEQ });
      if (gen !== generation.current) return;
      if (!r.ok) return setLoaded((l) => ({ ...l, error: r.error.message, ready: true }));
      const { total, offset } = r.value;
      if (entries.current.length !== total) entries.current = new Array<HistoryEntry | undefined>(total);
      store(offset, r.value.entries, total);
      setLoaded((l) => ({ total, version: l.version + 1, error: null, ready: true }));
      if (total > 0) {
        setTarget((t) =>
          seq !== undefined
            ? { index: Math.min(total - 1, r.value.targetIndex ?? 0), align: 'center', highlight: true, n: (t?.n ?? 0) + 1 }
            : { index: total - 1, align: 'end', highlight: false, n: (t?.n ?? 0) + 1 },
        );
      }
    })();
  }, [api, sessionId, seq, nonce]);

  /** Fetches the pages holding indices [from, to] that are not loaded yet. */
  const ensure = useCallback(
    (from: number, to: number) => {
      const total = entries.current.length;
      if (total === 0) return;
      const gen = generation.current;
      const lo = Math.max(0, from);
      const hi = Math.min(total - 1, to);
      for (let page = Math.floor(lo / PAGE); page <= Math.floor(hi / PAGE); page++) {
        if (inflight.current.has(page)) continue;
        const start = page * PAGE;
        const end = Math.min(total, start + PAGE);
        let missing = false;
        for (let i = Math.max(start, lo); i <= Math.min(end - 1, hi); i++) {
          if (!entries.current[i]) {
            missing = true;
            break;
          }
        }
        if (!missing) continue;
        inflight.current.add(page);
        void api.call('history.entries', { sessionId, offset: start, limit: PAGE }).then((r) => {
          if (gen !== generation.current) return;
          inflight.current.delete(page);
          if (!r.ok) return setLoaded((l) => ({ ...l, error: r.error.message }));
          const total = Math.max(r.value.total, entries.current.length);
          store(r.value.offset, r.value.entries, total);
          setLoaded((l) => ({ ...l, total, version: l.version + 1 }));
        });
      }
    },
    [api, sessionId],
  );

  return { entries, loaded, target, ensure };
}

/** Rows not in the thread model; thread entries are estimated as the live thread estimates them. */
function estimate(e: HistoryEntry | undefined): number {
  if (!e) return 80;
  if (e.entry) return entryEstimate(e.entry);
  return e.terminal ? 220 : 40;
}

const STOP_REASONS: ReadonlySet<string> = new Set<StopReason>(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);

/** A file the agent wrote through the client (fs/write_text_file). */
function WriteView({ entry, cwd }: { entry: HistoryEntry; cwd: string | null }) {
  const [open, setOpen] = useState(false);
  const w = entry.write;
  if (!w) return null;
  const path = cwd && w.path.startsWith(`${cwd.replace(/[\\/]+$/, '')}/`) ? w.path.slice(cwd.replace(/[\\/]+$/, '').length + 1) : w.path;
  return (
    <div className="tool-call tx-write" data-testid="transcript-write">
      <button className="tool-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className="tool-icon" aria-hidden>
          <Save size={14} />
        </span>
        <span className="tool-title">
          Wrote <VisibleText text={path} />
        </span>
        <span className="chevron" aria-hidden>
          {open ? <ChevronDown size={14} /> : <ChevronRight size={14} />}
        </span>
      </button>
      {open && (
        <div className="tool-body">
          <pre className="raw-json">{w.content}</pre>
          {w.truncated && <div className="muted small">Shortened in the index; the export has all of it.</div>}
        </div>
      )}
    </div>
  );
}

const TranscriptEntry = memo(function TranscriptEntry({ entry, sessionId, cwd }: { entry: HistoryEntry; sessionId: string; cwd: string | null }) {
  if (entry.entry) return <ThreadEntryView entry={entry.entry} sessionId={sessionId} cwd={cwd} live={false} onRestart={null} stored />;
  if (entry.write) return <WriteView entry={entry} cwd={cwd} />;
  if (entry.terminal) {
    const t = entry.terminal;
    return <MetaTerminalView id={t.terminalId} output={t.output} exit={t.exitCode === null && t.signal === null ? null : { exitCode: t.exitCode, signal: t.signal }} />;
  }
  const reason = entry.stop?.stopReason ?? null;
  if (reason && STOP_REASONS.has(reason)) return <StopMark reason={reason as StopReason} />;
  if (entry.stop) return <div className="stop-mark">{reason ? (STOP_TEXT[reason] ?? `Stopped: ${reason}`) : entry.text}</div>;
  return <div className="muted small">{entry.text}</div>;
});

/** A past session's transcript, read from the store: virtualized, paged, with a way to continue it. */
export function TranscriptTab({ tab, active }: TabViewProps) {
  const p = transcriptProps(tab.props);
  if (!p) return <div className="empty-state">This tab has no session.</div>;
  return <Transcript key={p.sessionId} tabId={tab.id} props={p} active={active} />;
}

function Transcript({ tabId, props: p, active }: { tabId: string; props: TranscriptProps; active: boolean }) {
  const api = useApi();
  const names = useAgentNames();
  const live = useLiveSessions();
  // The first page of entries is asked for first: the server answers in order, and it is what is painted first.
  const { entries, loaded, target, ensure } = useEntries(api, p.sessionId, p.seq, p.nonce);
  const meta = useSessionMeta(api, p);
  const session = meta.session;
  const turnCheckpoints = useTurnCheckpoints(api, p.sessionId);
  const checkpoints = useMemo(() => byPrompt(turnCheckpoints), [turnCheckpoints]);
  const scroller = useRef<HTMLDivElement>(null);
  const [highlight, setHighlight] = useState<number | null>(null);
  const [renaming, setRenaming] = useState(false);
  const cwd = session?.cwd ?? p.cwd ?? null;
  const agentId = session?.agentId ?? p.agentId ?? null;
  const title = session ? displayTitle(session, names(session.agentId)) : (useTabs.getState().tabs[tabId]?.title ?? 'Session');

  // The tab keeps the session's current name, and what it needs to reopen after a restart.
  useEffect(() => {
    if (!session) return;
    const t = useTabs.getState().tabs[tabId];
    if (!t) return;
    const want = { title: displayTitle(session, names(session.agentId)), agentId: session.agentId, cwd: session.cwd };
    if (t.title !== want.title || t.props.agentId !== want.agentId || t.props.cwd !== want.cwd) {
      useTabs.getState().update(tabId, { title: want.title, props: { ...t.props, agentId: want.agentId, cwd: want.cwd } });
    }
  }, [session, tabId, names]);

  const virtualizer = useVirtualizer({
    count: loaded.total,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => estimate(entries.current[i]),
    overscan: 6,
    paddingStart: 12,
    paddingEnd: 24,
  });

  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    if (last >= 0) ensure(first - 20, last + 20);
  }, [first, last, loaded.total, ensure]);

  // Scroll to the search hit (centred, highlighted for a moment) or to the end.
  const scrolledFor = useRef(0);
  useLayoutEffect(() => {
    if (!target || scrolledFor.current === target.n || loaded.total === 0) return;
    scrolledFor.current = target.n;
    virtualizer.scrollToIndex(target.index, { align: target.align });
    if (target.highlight) setHighlight(target.index);
  }, [target, loaded.total, virtualizer]);
  useEffect(() => {
    if (highlight === null) return;
    const t = setTimeout(() => setHighlight(null), HIGHLIGHT_MS);
    return () => clearTimeout(t);
  }, [highlight]);

  useEffect(() => {
    if (active) requestAnimationFrame(() => scroller.current?.focus({ preventScroll: true }));
  }, [active]);

  const isLive = p.sessionId in live;
  const agentName = agentId ? names(agentId) : 'the agent';

  return (
    <div className="transcript-tab" data-testid="transcript-tab" data-session-id={p.sessionId} data-total={loaded.ready ? loaded.total : undefined}>
      <header className="transcript-head">
        <div className="transcript-title-row">
          {renaming && session ? (
            <InlineRename session={session} onDone={() => setRenaming(false)} />
          ) : (
            <h1 className="transcript-title" title={title} onDoubleClick={() => session && setRenaming(true)} data-testid="transcript-title">
              <VisibleText text={title} />
            </h1>
          )}
          {meta.deleted && <span className="tag failed">deleted</span>}
          {session?.pinned && <span className="tag">pinned</span>}
          <span className="transcript-actions">
            {session && !meta.deleted && (
              <>
                <button onClick={() => setRenaming(true)} title="Rename">
                  Rename
                </button>
                <button onClick={() => void pinSession(api, session.id, !session.pinned)} aria-pressed={session.pinned}>
                  {session.pinned ? 'Unpin' : 'Pin'}
                </button>
              </>
            )}
            <button onClick={() => void exportSession(api, p.sessionId, 'markdown')} data-testid="transcript-export-md">
              Export Markdown
            </button>
            <button onClick={() => void exportSession(api, p.sessionId, 'json')} data-testid="transcript-export-json">
              Export JSON
            </button>
            {session && !meta.deleted && (
              <button className="danger" onClick={() => void deleteSessions(api, [session.id], `“${title}”`)}>
                Delete
              </button>
            )}
          </span>
        </div>
        <div className="transcript-meta muted">
          {agentId && <span className="session-agent"><VisibleText text={agentName} /></span>}
          {cwd && (
            <span className="transcript-cwd" title={cwd}>
              <VisibleText text={shortPath(cwd)} />
            </span>
          )}
          {session && (
            <>
              <span title={formatDateTime(session.createdAt)}>started {formatDateTime(session.createdAt)}</span>
              <span title={formatDateTime(session.lastActivityAt)}>last active {relativeTime(session.lastActivityAt)}</span>
              <span>{plural(session.turnCount, 'turn')}</span>
              <span>{plural(session.toolCallCount, 'tool call')}</span>
              <span>{plural(session.filesTouched, 'file')} touched</span>
              {session.failedTurns > 0 && <span className="history-failed">{plural(session.failedTurns, 'failed turn')}</span>}
              <ForkLinks forkedFrom={session.forkedFrom} forks={session.forks} agentId={session.agentId} cwd={session.cwd} />
            </>
          )}
        </div>
      </header>
      {loaded.error && (
        <div className="banner error" role="alert">
          Could not read this session: {loaded.error}
        </div>
      )}
      <div className="session-body">
        <div className="thread-wrap">
          <div className="thread transcript-scroller" ref={scroller} tabIndex={-1} data-testid="transcript" role="log" aria-label="Transcript">
            {loaded.ready && loaded.total === 0 && !loaded.error && <div className="thread-empty muted">This session has no messages.</div>}
            {!loaded.ready && (
              <div className="thread-empty muted">
                <span className="spinner" aria-hidden /> Loading the transcript…
              </div>
            )}
            <div className="thread-inner" style={{ height: virtualizer.getTotalSize() }}>
              {items.map((item) => {
                const entry = entries.current[item.index];
                // A turn's changes (its checkpoints) follow the turn's last entry.
                const next = entries.current[item.index + 1];
                const turnEnds = entry?.promptId !== undefined && (item.index === loaded.total - 1 || (next !== undefined && next.turn !== entry.turn));
                const turns = turnEnds ? checkpoints.get(entry.promptId!) : undefined;
                return (
                  <div
                    key={item.key}
                    className={`thread-row tx-row${highlight === item.index ? ' tx-target' : ''}${entry?.failed ? ' tx-failed' : ''}`}
                    data-index={item.index}
                    ref={virtualizer.measureElement}
                    style={{ transform: `translateY(${item.start}px)` }}
                  >
                    {entry ? (
                      <>
                        <div data-testid="transcript-entry" data-seq={entry.seq} data-kind={entry.kind} data-target={highlight === item.index || undefined}>
                          <TranscriptEntry entry={entry} sessionId={p.sessionId} cwd={cwd} />
                        </div>
                        {turns && <TurnChanges sessionId={p.sessionId} turns={turns} />}
                      </>
                    ) : (
                      <div className="tx-placeholder" style={{ height: Math.max(24, item.size - 8) }} aria-hidden />
                    )}
                  </div>
                );
              })}
            </div>
          </div>
        </div>
      </div>
      <ContinuePanel tabId={tabId} sessionId={p.sessionId} session={session} agentId={agentId} cwd={cwd} agentName={agentName} live={isLive} title={title} />
    </div>
  );
}
