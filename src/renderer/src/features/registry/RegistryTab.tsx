import { useEffect, useMemo, useState } from 'react';
import { DEFAULT_REGISTRY_URL, type DistKind, type RegistryList } from '@shared/contract/registry';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { EntryCard, orphanEntry } from './EntryCard';
import { KIND_TEXT, describeSource, filterEntries, formatDate, type ShowFilter } from './format';
import { refreshList, syncRegistry, useRegistry } from './state';
import { SettingField } from '../settings';

const KINDS: DistKind[] = ['binary', 'npx', 'uvx'];

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

function SourceLine({ list }: { list: RegistryList | null }) {
  const api = useApi();
  const refreshing = useRegistry((s) => s.refreshing);
  const loading = useRegistry((s) => s.loading);
  const loadError = useRegistry((s) => s.loadError);
  const [editing, setEditing] = useState(false);
  const now = useNow(30_000);
  const source = list?.source;
  const described = source ? describeSource(source, now) : null;
  return (
    <div className="reg-source">
      <div className="reg-source-line">
        <div className={`reg-source-text level-${described?.level ?? 'none'}`} data-testid="registry-source" data-origin={source?.origin ?? 'loading'}>
          {!list && !loadError && (loading ? 'Loading the registry…' : '')}
          {loadError && <span className="error">The registry could not be listed: {loadError}</span>}
          {described && <span className="reg-source-status">{described.text}</span>}
          {source && (
            <span className="muted small reg-source-url" title={source.dataUrl && source.dataUrl !== source.url ? `Showing the copy of ${source.dataUrl}` : undefined}>
              {' '}
              Source: {source.url === DEFAULT_REGISTRY_URL ? 'the ACP Registry' : source.url}
              {source.dataUrl && source.dataUrl !== source.url ? ` (showing the copy of ${source.dataUrl})` : ''}
              {source.registryVersion ? ` · registry ${source.registryVersion}` : ''}
              {source.fetchedAt ? ` · downloaded ${formatDate(source.fetchedAt)}` : ''}
              {list.platform ? ` · this machine: ${list.platform}` : ''}
            </span>
          )}
        </div>
        <button onClick={() => void refreshList(api)} disabled={refreshing} data-testid="registry-refresh" title="Download the registry again">
          {refreshing ? 'Refreshing…' : 'Refresh'}
        </button>
        <button onClick={() => setEditing(!editing)} aria-expanded={editing} data-testid="registry-url-edit">
          Change source…
        </button>
      </div>
      {editing && (
        <div className="reg-url-form" data-testid="registry-url-form">
          <SettingField k="registry.url" />
        </div>
      )}
      {source && source.warnings.length > 0 && (
        <details className="reg-doc-warnings small">
          <summary>
            {source.warnings.length} remark{source.warnings.length === 1 ? '' : 's'} about the registry document
          </summary>
          <ul>
            {source.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

/** The Registry tab: browse the ACP Registry, install, update, roll back and remove agents. */
export function RegistryTab(_props: TabViewProps) {
  const api = useApi();
  const list = useRegistry((s) => s.list);
  const [query, setQuery] = useState('');
  const [show, setShow] = useState<ShowFilter>('all');
  const [kinds, setKinds] = useState<DistKind[]>([]);
  useEffect(() => syncRegistry(api), [api]);

  const entries = useMemo(() => list?.entries ?? [], [list]);
  const shown = useMemo(() => filterEntries(entries, { query, show, kinds }), [entries, query, show, kinds]);
  const orphans = useMemo(() => (list?.installed ?? []).filter((i) => !entries.some((e) => e.id === i.registryId)), [list, entries]);
  const installedCount = entries.filter((e) => e.installed).length;
  const updateCount = entries.filter((e) => e.updateAvailable).length;
  const filtered = query.trim() !== '' || show !== 'all' || kinds.length > 0;

  return (
    <div className="registry-tab" data-testid="registry-tab">
      <header className="reg-header">
        <h1>ACP Registry</h1>
        <p className="muted small">Agents published in the Agent Client Protocol registry. Installing one adds it to your agents; nothing runs until you start a session.</p>
        <SourceLine list={list} />
        <div className="reg-toolbar">
          <input
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Search by name, description, author, license…"
            aria-label="Search the registry"
            data-testid="registry-search"
          />
          <div className="reg-segmented" role="radiogroup" aria-label="Show">
            {(
              [
                ['all', `All (${entries.length})`],
                ['installed', `Installed (${installedCount})`],
                ['updates', `Updates (${updateCount})`],
              ] as const
            ).map(([value, label]) => (
              <button key={value} role="radio" aria-checked={show === value} className={show === value ? 'on' : ''} onClick={() => setShow(value)} data-testid={`registry-filter-${value}`}>
                {label}
              </button>
            ))}
          </div>
          <div className="reg-kind-filter" role="group" aria-label="Distribution">
            {KINDS.map((k) => (
              <button
                key={k}
                aria-pressed={kinds.includes(k)}
                className={kinds.includes(k) ? 'on' : ''}
                onClick={() => setKinds(kinds.includes(k) ? kinds.filter((x) => x !== k) : [...kinds, k])}
                data-testid={`registry-kind-${k}`}
              >
                {KIND_TEXT[k]}
              </button>
            ))}
          </div>
        </div>
      </header>
      <div className="reg-body">
        {list && (
          <p className="muted small" data-testid="registry-count">
            {filtered ? `${shown.length} of ${entries.length} agents` : `${entries.length} agent${entries.length === 1 ? '' : 's'}`}
          </p>
        )}
        <ul className="reg-list" data-testid="registry-list">
          {shown.map((e) => (
            <EntryCard key={e.id} entry={e} />
          ))}
        </ul>
        {list && shown.length === 0 && (
          <p className="muted" data-testid="registry-empty">
            {entries.length === 0 ? 'The registry lists no agents.' : 'No agent matches.'}{' '}
            {filtered && (
              <button
                className="link-button"
                onClick={() => {
                  setQuery('');
                  setShow('all');
                  setKinds([]);
                }}
              >
                Clear the search and filters
              </button>
            )}
          </p>
        )}
        {orphans.length > 0 && (
          <section className="reg-section" data-testid="registry-orphans">
            <h2>Installed, no longer in the registry</h2>
            <ul className="reg-list">
              {orphans.map((i) => (
                <EntryCard key={i.registryId} entry={orphanEntry(i)} listed={false} />
              ))}
            </ul>
          </section>
        )}
        {list && list.invalid.length > 0 && (
          <section className="reg-section" data-testid="registry-invalid">
            <h2>
              {list.invalid.length} entr{list.invalid.length === 1 ? 'y' : 'ies'} of the registry could not be used
            </h2>
            <ul className="reg-invalid-list">
              {list.invalid.map((inv) => (
                <li key={inv.index} data-testid="registry-invalid-entry">
                  <strong>{inv.name ?? inv.id ?? `Entry #${inv.index + 1}`}</strong>
                  {inv.id && inv.name ? <span className="muted"> ({inv.id})</span> : null}
                  <ul className="small">
                    {inv.reasons.map((r) => (
                      <li key={r}>{r}</li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
    </div>
  );
}
