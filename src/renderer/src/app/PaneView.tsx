import { Circle, Columns2, Rows2, X } from 'lucide-react';
import { useApi } from './api-context';
import { VisibleText, visibleText } from '../ui/VisibleText';
import { tabKinds } from './contributions';
import { isRestoredTab } from './layout';
import { useEffect, useLayoutEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { useShortcutHint, withHint } from './shortcuts';
import { MAX_PANES, useTabs, type Pane } from '../state/tabs';

import { closeTab, openLauncher } from './tab-actions';

export { closeTab, openLauncher };

/** One pane: its tab strip and its tabs (all kept mounted, only the active one shown). */
const TAB_MIME = 'application/x-switchboard-tab';

function TabIcon({ kind }: { kind: string }) {
  const Icon = tabKinds.get(kind)?.icon ?? Circle;
  return <Icon size={14} />;
}

export function PaneView({ pane }: { pane: Pane }) {
  const api = useApi();
  const tabs = useTabs((s) => s.tabs);
  const focused = useTabs((s) => s.focusedPaneId === pane.id);
  const paneCount = useTabs((s) => s.panes.length);
  const { activate, moveTab, focusPane, closePane, split } = useTabs.getState();
  const [dropping, setDropping] = useState(false);
  const hints = { newTab: useShortcutHint('tabs.new'), right: useShortcutHint('panes.splitRight'), down: useShortcutHint('panes.splitDown') };
  // The active tab is kept in view when the strip scrolls (a tab opened at its far end, say).
  const strip = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const s = strip.current;
    const tab = s?.querySelector<HTMLElement>('[role=tab][aria-selected=true]');
    if (s && tab) revealTab(s, tab);
  }, [pane.activeTabId, pane.tabIds.length]);

  const dropProps = (index?: number) => ({
    onDragOver: (e: DragEvent) => {
      if (!e.dataTransfer.types.includes(TAB_MIME)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'move';
      setDropping(true);
    },
    onDragLeave: () => setDropping(false),
    onDrop: (e: DragEvent) => {
      const tabId = e.dataTransfer.getData(TAB_MIME);
      setDropping(false);
      if (!tabId) return;
      e.preventDefault();
      e.stopPropagation();
      moveTab(tabId, pane.id, index);
    },
  });

  return (
    <div className={`pane${focused ? ' focused' : ''}${dropping ? ' dropping' : ''}`} data-testid="pane" data-pane-id={pane.id} onMouseDownCapture={() => focusPane(pane.id)}>
      <div className="tab-bar" {...dropProps()}>
        <div className="tab-strip" role="tablist" ref={strip}>
          {pane.tabIds.map((id, index) => {
            const tab = tabs[id];
            if (!tab) return null;
            const active = pane.activeTabId === id;
            return (
              <div
                key={id}
                role="tab"
                id={`tab-${id}`}
                aria-controls={`tab-panel-${id}`}
                aria-selected={active}
                className={`tab${active ? ' active' : ''}${tab.status ? ` status-${tab.status}` : ''}`}
                draggable
                onDragStart={(e) => {
                  e.dataTransfer.setData(TAB_MIME, id);
                  e.dataTransfer.effectAllowed = 'move';
                }}
                {...dropProps(index)}
                onMouseDown={(e) => e.button === 1 && closeTab(id, api)}
                onClick={() => activate(id)}
                title={visibleText(tab.title)}
                data-testid="tab"
              >
                <span className="tab-icon" aria-hidden>
                  <TabIcon kind={tab.kind} />
                </span>
                <span className="tab-title">
                  <VisibleText text={tab.title} />
                </span>
                {tab.status && tab.status !== 'idle' && <span className={`tab-badge ${tab.status}`} aria-label={tab.status} />}
                <button
                  className="tab-close"
                  aria-label={`Close ${visibleText(tab.title)}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    closeTab(id, api);
                  }}
                >
                  <X size={12} />
                </button>
              </div>
            );
          })}
        </div>
        <button className="tab-new" aria-label="New tab" title={withHint('New tab', hints.newTab)} onClick={openLauncher}>
          +
        </button>
        <span className="tab-strip-fill" />
        <div className="pane-actions">
          <button aria-label="Split right" title={withHint('Split right', hints.right)} disabled={paneCount >= MAX_PANES} onClick={() => split('row')}>
            <Columns2 size={14} />
          </button>
          <button aria-label="Split down" title={withHint('Split down', hints.down)} disabled={paneCount >= MAX_PANES} onClick={() => split('column')}>
            <Rows2 size={14} />
          </button>
          {paneCount > 1 && (
            <button aria-label="Close pane" title="Close pane (its tabs move to the neighbour)" onClick={() => closePane(pane.id)}>
              <X size={14} />
            </button>
          )}
        </div>
      </div>
      <div className="tab-content" {...dropProps()}>
        {pane.tabIds.length === 0 && (
          <div className="empty-state" data-testid="empty-state">
            <h1>No tabs open</h1>
            <p>
              {hints.newTab ? (
                <>
                  Press <kbd>{hints.newTab}</kbd> (or the <strong>+</strong> above)
                </>
              ) : (
                <>
                  Click the <strong>+</strong> above
                </>
              )}{' '}
              to start an agent session or open a shell. Install agents from the Registry in the sidebar.
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
            <TabPanel key={id} tabId={id} active={active}>
              <kind.view tab={tab} active={active} />
            </TabPanel>
          );
        })}
      </div>
    </div>
  );
}

/** Scrolls the strip, and nothing around it (as scrollIntoView would), so that the tab is wholly in view. */
function revealTab(strip: HTMLElement, tab: HTMLElement): void {
  const s = strip.getBoundingClientRect();
  const t = tab.getBoundingClientRect();
  if (t.left < s.left) strip.scrollLeft -= s.left - t.left;
  else if (t.right > s.right) strip.scrollLeft += Math.min(t.right - s.right, t.left - s.left);
}

/**
 * A tab's panel. When it is shown while the keyboard is still in a panel just hidden (a terminal, say), it
 * takes the keyboard, so keys neither reach the hidden tab nor count as typed in it; the tab's own view
 * may then focus what it prefers.
 */
function TabPanel({ tabId, active, children }: { tabId: string; active: boolean; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  // A tab the saved layout brought back costs nothing until it is first shown: its view (which starts a shell,
  // reads a folder's changes, loads a transcript) mounts then. A tab opened in this window mounts at once.
  const [shown, setShown] = useState(active || !isRestoredTab(tabId));
  if (active && !shown) setShown(true);
  // Before the browser handles another key: a layout effect runs as the panels are swapped.
  useLayoutEffect(() => {
    if (!active) return;
    const a = document.activeElement;
    if (a && a.closest('.tab-panel[hidden]')) ref.current?.focus({ preventScroll: true });
  }, [active]);
  return (
    <div ref={ref} className="tab-panel" id={`tab-panel-${tabId}`} aria-labelledby={`tab-${tabId}`} hidden={!active} role="tabpanel" tabIndex={-1} data-mounted={shown ? 'true' : 'false'}>
      {shown && children}
    </div>
  );
}
