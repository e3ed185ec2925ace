import { useApi } from './api-context';
import { tabKinds } from './registry';
import { useTabs, type Pane } from '../state/tabs';

export function closeTab(tabId: string, api: ReturnType<typeof useApi>): void {
  const tab = useTabs.getState().tabs[tabId];
  if (!tab) return;
  void tabKinds.get(tab.kind)?.onClose?.(tab, api);
  useTabs.getState().close(tabId);
}

export function openLauncher(): void {
  useTabs.getState().open({ kind: 'launcher', title: 'New tab', props: {} });
}

/** One pane: its tab strip and its tabs (all kept mounted, only the active one shown). */
export function PaneView({ pane }: { pane: Pane }) {
  const api = useApi();
  const tabs = useTabs((s) => s.tabs);
  const focused = useTabs((s) => s.focusedPaneId === pane.id);
  const activate = useTabs((s) => s.activate);

  return (
    <div className={`pane${focused ? ' focused' : ''}`} data-testid="pane">
      <div className="tab-strip" role="tablist">
        {pane.tabIds.map((id) => {
          const tab = tabs[id];
          if (!tab) return null;
          const active = pane.activeTabId === id;
          return (
            <div
              key={id}
              role="tab"
              aria-selected={active}
              className={`tab${active ? ' active' : ''}${tab.status ? ` status-${tab.status}` : ''}`}
              onMouseDown={(e) => e.button === 1 && closeTab(id, api)}
              onClick={() => activate(id)}
              title={tab.title}
              data-testid="tab"
            >
              <span className="tab-icon" aria-hidden>
                {tabKinds.get(tab.kind)?.icon ?? '•'}
              </span>
              <span className="tab-title">{tab.title}</span>
              {tab.status && tab.status !== 'idle' && <span className={`tab-badge ${tab.status}`} aria-label={tab.status} />}
              <button
                className="tab-close"
                aria-label={`Close ${tab.title}`}
                onClick={(e) => {
                  e.stopPropagation();
                  closeTab(id, api);
                }}
              >
                ×
              </button>
            </div>
          );
        })}
        <button className="tab-new" aria-label="New tab" title="New tab (Ctrl+T)" onClick={openLauncher}>
          +
        </button>
      </div>
      <div className="tab-content">
        {pane.tabIds.length === 0 && (
          <div className="empty-state" data-testid="empty-state">
            <h1>No tabs open</h1>
            <p>
              Press <kbd>Ctrl</kbd>+<kbd>T</kbd> (or the <strong>+</strong> above) to start an agent session or open a shell. Install
              agents from the Registry in the sidebar.
            </p>
            <button className="primary" onClick={openLauncher}>
              New tab
            </button>
          </div>
        )}
        {pane.tabIds.map((id) => {
          const tab = tabs[id];
          const kind = tab && tabKinds.get(tab.kind);
          if (!tab || !kind) return null;
          const active = pane.activeTabId === id;
          return (
            <div key={id} className="tab-panel" hidden={!active} role="tabpanel">
              <kind.view tab={tab} active={active} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
