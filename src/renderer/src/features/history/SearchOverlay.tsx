import { sessionTitle } from '@shared/session-title';
import { Search } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ParamsOf, ResultOf } from '@shared/contract';
import type { SearchHit } from '@shared/contract/history';
import { useApi } from '../../app/api-context';
import { VisibleText, visibleText } from '../../ui/VisibleText';
import { openTranscript } from './actions';
import { basename, formatDateTime, KIND_TEXT, shortPath } from './format';
import { Highlight } from './Highlight';
import { useAgentNames, useHistoryList } from './hooks';
import { closeSearch } from './state';
import { AgentSelect } from '../../ui/Select';

const DAY = 86_400_000;
type DatePreset = 'any' | 'day' | 'week' | 'month' | 'year' | 'custom';
const PRESETS: Array<[DatePreset, string]> = [
  ['any', 'Any time'],
  ['day', 'Past 24 hours'],
  ['week', 'Past 7 days'],
  ['month', 'Past 30 days'],
  ['year', 'Past year'],
  ['custom', 'Between dates…'],
];
const PRESET_MS: Partial<Record<DatePreset, number>> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };

/** A yyyy-mm-dd of a date input as local midnight, in ms. */
const dayStart = (v: string): number | undefined => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  const [y, m, d] = v.split('-').map(Number) as [number, number, number];
  const t = new Date(y, m - 1, d).getTime();
  return Number.isFinite(t) && t >= 0 ? t : undefined;
};

export interface SearchFilters {
  agentId: string;
  project: string;
  date: DatePreset;
  from: string;
  to: string;
  failedOnly: boolean;
}

export function searchParams(query: string, f: SearchFilters, now = Date.now()): ParamsOf<'history.search'> {
  const p: ParamsOf<'history.search'> = { query, limit: 50, perSession: 3 };
  if (f.agentId) p.agentIds = [f.agentId];
  if (f.project) p.projects = [f.project];
  if (f.failedOnly) p.failedOnly = true;
  const span = PRESET_MS[f.date];
  if (span) p.from = Math.max(0, now - span);
  if (f.date === 'custom') {
    const from = dayStart(f.from);
    const to = dayStart(f.to);
    if (from !== undefined) p.from = from;
    if (to !== undefined) p.to = to + DAY;
  }
  return p;
}

type SearchResult = ResultOf<'history.search'>;

/** Search every session as you type: ↑/↓ to choose, Enter to open, Esc to close. */
export function SearchOverlay() {
  const api = useApi();
  const names = useAgentNames();
  const groups = useHistoryList({ limit: 1 }).data?.groups ?? [];
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState<SearchFilters>({ agentId: '', project: '', date: 'any', from: '', to: '', failedOnly: false });
  const [result, setResult] = useState<{ query: string; data: SearchResult } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const input = useRef<HTMLInputElement>(null);

  // Focus returns where it was when the dialog closes.
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    input.current?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);

  const agents = useMemo(() => [...new Set(groups.map((g) => g.agentId))].sort((a, b) => names(a).localeCompare(names(b))), [groups, names]);
  const projects = useMemo(() => [...new Set(groups.map((g) => g.cwd))].sort(), [groups]);

  const trimmed = query.trim();
  const paramsKey = JSON.stringify(searchParams(trimmed, filters, 0)) + (filters.date in PRESET_MS ? `@${Math.floor(Date.now() / 60_000)}` : '');
  useEffect(() => {
    if (!trimmed) {
      setResult(null);
      setError(null);
      setBusy(false);
      return;
    }
    let stale = false;
    setBusy(true);
    const timer = setTimeout(async () => {
      const r = await api.call('history.search', searchParams(trimmed, filters));
      if (stale) return;
      setBusy(false);
      if (r.ok) {
        setResult({ query: trimmed, data: r.value });
        setError(null);
        setSelected(0);
      } else setError(r.error.message);
    }, 120);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
    // paramsKey stands for trimmed + filters.
  }, [api, paramsKey]);

  const hits = trimmed && result ? result.data.hits : [];
  const sel = Math.min(selected, Math.max(0, hits.length - 1));

  useEffect(() => {
    list.current?.querySelector<HTMLElement>(`[data-index="${sel}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [sel, hits]);

  const open = (hit: SearchHit) => {
    closeSearch();
    openTranscript({ id: hit.sessionId, ...hit.session }, hit.kind === 'title' ? undefined : hit.seq);
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closeSearch();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!(e.target instanceof HTMLInputElement) && !(e.target instanceof HTMLUListElement)) return;
      e.preventDefault();
      if (hits.length) setSelected((sel + (e.key === 'ArrowDown' ? 1 : hits.length - 1)) % hits.length);
    } else if (e.key === 'Enter' && e.target === input.current) {
      e.preventDefault();
      const hit = hits[sel];
      if (hit) open(hit);
    }
  };

  const set = <K extends keyof SearchFilters>(k: K, v: SearchFilters[K]) => setFilters((f) => ({ ...f, [k]: v }));
  const filtered = filters.agentId || filters.project || filters.date !== 'any' || filters.failedOnly;

  return (
    <div className="history-search-backdrop" onMouseDown={(e) => e.target === e.currentTarget && closeSearch()} data-testid="history-search">
      <div className="history-search" role="dialog" aria-modal="true" aria-label="Search history" onKeyDown={onKeyDown}>
        <div className="history-search-input">
          <Search size={14} aria-hidden />
          <input
            ref={input}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Search prompts, replies, tool calls, file paths…"
            aria-label="Search history"
            aria-controls="history-search-results"
            aria-activedescendant={hits[sel] ? `history-hit-${sel}` : undefined}
            spellCheck={false}
            data-testid="history-search-input"
          />
          {busy && <span className="spinner" aria-label="Searching" />}
        </div>
        <div className="history-search-filters">
          <AgentSelect
            agents={agents.map((id) => ({ id, name: names(id) }))}
            empty="All agents"
            value={filters.agentId}
            onChange={(id) => set('agentId', id)}
            aria-label="Agent"
            data-testid="history-filter-agent"
          />
          <select value={filters.project} onChange={(e) => set('project', e.target.value)} aria-label="Project" data-testid="history-filter-project">
            <option value="">All projects</option>
            {projects.map((p) => (
              <option key={p} value={p} title={p}>
                {visibleText(shortPath(p))}
              </option>
            ))}
          </select>
          <select value={filters.date} onChange={(e) => set('date', e.target.value as DatePreset)} aria-label="Date" data-testid="history-filter-date">
            {PRESETS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
          {filters.date === 'custom' && (
            <>
              <input type="date" value={filters.from} onChange={(e) => set('from', e.target.value)} aria-label="From" data-testid="history-filter-from" />
              <input type="date" value={filters.to} onChange={(e) => set('to', e.target.value)} aria-label="To" data-testid="history-filter-to" />
            </>
          )}
          <label className="history-check">
            <input type="checkbox" checked={filters.failedOnly} onChange={(e) => set('failedOnly', e.target.checked)} data-testid="history-filter-failed" /> Failed turns only
          </label>
        </div>
        {error && (
          <div className="error small history-search-note" role="alert">
            {error}
          </div>
        )}
        {!trimmed && (
          <div className="muted history-search-note">
            Every word matches as a prefix (<code>auth fi</code> finds “authentication fixed”); put a phrase in “quotes”. ↑ ↓ to choose, Enter to open, Esc to close.
          </div>
        )}
        {trimmed && result && hits.length === 0 && !busy && (
          <div className="muted history-search-note" data-testid="history-search-empty" data-query={result.query}>
            Nothing found for “{result.query}”{filtered ? ' with these filters' : ''}.
          </div>
        )}
        {result && !result.data.indexing.done && (
          <div className="muted small history-search-note">Still indexing older sessions ({result.data.indexing.pendingMessages.toLocaleString()} messages): some results may be missing.</div>
        )}
        {result?.data.truncated && <div className="muted small history-search-note">Only the most recent matches were ranked. Add words or filters to see older ones.</div>}
        {hits.length > 0 && (
          <ul className="history-hits" role="listbox" id="history-search-results" ref={list} aria-label="Results" data-testid="history-hits" data-query={result?.query}>
            {hits.map((h, i) => (
              <li
                key={`${h.sessionId}:${h.entryId}`}
                id={`history-hit-${i}`}
                role="option"
                aria-selected={i === sel}
                data-index={i}
                className={`history-hit${i === sel ? ' selected' : ''}`}
                onMouseMove={() => i !== sel && setSelected(i)}
                onClick={() => open(h)}
                data-testid="history-hit"
                data-session-id={h.sessionId}
                data-kind={h.kind}
              >
                <div className="history-hit-head">
                  <span className="history-hit-title">
                    <VisibleText text={sessionTitle(h.session.title, names(h.session.agentId))} />
                  </span>
                  <span className={`tag kind-${h.kind}`}>{KIND_TEXT[h.kind] ?? h.kind}</span>
                  {h.failed && <span className="tag failed">failed turn</span>}
                </div>
                <div className="history-hit-meta">
                  <span>{names(h.session.agentId)}</span>
                  <span title={h.session.cwd}><VisibleText text={basename(h.session.cwd)} /></span>
                  <span>{formatDateTime(h.ts)}</span>
                </div>
                {h.toolTitle && h.kind !== 'tool' && <div className="history-hit-tool">{h.toolTitle}</div>}
                <Highlight value={h.snippet} className="history-hit-snippet" />
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
