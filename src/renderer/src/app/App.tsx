import { Plus, X } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import type { AppInfo } from '@shared/contract/app';
import type { Api } from '../ipc/client';
import { syncLiveSessions, useTitleCount } from './attention';
import { restoreAndTrackLayout } from './layout';
import { ApiContext } from './api-context';
import { Launcher } from './Launcher';
import { ConnectionBanner } from './ConnectionBanner';
import { ConfirmHost } from '../ui/confirm';
import { LinkConfirmDialog } from './link-confirm';
import { useNotices } from './notices';
import { PaneLayout } from './PaneLayout';
import { connectionHooks, overlays, registerTabKind } from './contributions';
import { startSettings } from './settings';
import { useShortcuts } from './shortcuts';
import { Sidebar } from './Sidebar';
import { useSidebar } from './sidebar-state';
import { StoreErrorScreen } from './StoreErrorScreen';
import { StoreMigrationBar } from './StoreMigrationBar';
import { useDocumentTheme } from './theme';

registerTabKind('launcher', { view: Launcher, icon: Plus });

export const AppInfoContext = { current: null as AppInfo | null };

function Workspace({ api, info }: { api: Api; info: AppInfo }) {
  const notices = useNotices((s) => s.notices);
  const dismiss = useNotices((s) => s.dismiss);
  const [restored, setRestored] = useState(false);
  const sidebarCollapsed = useSidebar((s) => s.collapsed);
  useShortcuts(api);
  // Live sessions' states: "needs you" counts a waiting session wherever it is, with or without a tab.
  useEffect(() => syncLiveSessions(api), [api]);
  // What features follow for the whole window (the tasks' runs: "needs you", notifications).
  useEffect(() => {
    for (const hook of connectionHooks) hook(api);
  }, [api]);
  useTitleCount();
  useDocumentTheme();
  useEffect(() => api.on('app.notice', (n) => useNotices.getState().push(n.level, n.message)), [api]);
  useEffect(() => {
    let stop: (() => void) | null = null;
    let cancelled = false;
    const settings = startSettings(api);
    void Promise.all([restoreAndTrackLayout(api), settings.ready]).then(([s]) => {
      if (cancelled) s();
      else stop = s;
      setRestored(true);
    });
    return () => {
      cancelled = true;
      stop?.();
      settings.stop();
    };
  }, [api]);
  if (!restored) return null;
  return (
    <div className={`app${sidebarCollapsed ? ' sidebar-collapsed' : ''}`} data-transport={info.transport}>
      <ConnectionBanner />
      <Sidebar />
      <PaneLayout />
      <LinkConfirmDialog />
      <ConfirmHost />
      {overlays.map((View, i) => (
        <View key={i} />
      ))}
      <StoreMigrationBar api={api} />
      <div className="notices" aria-live="polite">
        {notices.map((n) => (
          <div
            key={n.id}
            className={`notice ${n.level}`}
            role={n.level === 'error' ? 'alert' : 'status'}
            onMouseEnter={() => useNotices.getState().hold(n.id, true)}
            onMouseLeave={() => useNotices.getState().hold(n.id, false)}
          >
            <span>{n.message}</span>
            <button aria-label="Dismiss" onClick={() => dismiss(n.id)}>
              <X size={12} />
            </button>
          </div>
        ))}
      </div>
    </div>
  );
}

export function App({ api }: { api: Api }) {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    const r = await api.call('app.info', {});
    if (r.ok) {
      AppInfoContext.current = r.value;
      setInfo(r.value);
    } else setError(r.error.message);
  }, [api]);
  useEffect(() => void load(), [load]);

  return (
    <ApiContext.Provider value={api}>
      {error && <div className="fatal">Switchboard could not start: {error}</div>}
      {info && !info.store.ok && <StoreErrorScreen status={info.store} onRecovered={() => void load()} />}
      {info && info.store.ok && <Workspace api={api} info={info} />}
    </ApiContext.Provider>
  );
}
