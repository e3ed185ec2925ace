import { Search, X } from 'lucide-react';
import { createPortal } from 'react-dom';
import { useApi } from '../../app/api-context';
import { SIDEBAR_HISTORY_LIMIT } from '../../app/first-paint';
import { openHistoryImport, openHistoryTab, undoDelete } from './actions';
import { useAgentNames, useHistoryList, useLiveSessions } from './hooks';
import { SearchOverlay } from './SearchOverlay';
import { SessionRow } from './SessionRow';
import { dismissUndo, openSearch, useHistory } from './state';
import { modKey } from './keys';

/** The sidebar's History: search, the most recent (and pinned) sessions, the way to all of them. */
export function HistorySection() {
  const { data, error } = useHistoryList({ limit: SIDEBAR_HISTORY_LIMIT });
  const names = useAgentNames();
  const live = useLiveSessions();
  return (
    <div className="history-section" data-testid="history-section">
      <button className="history-search-button" onClick={openSearch} data-testid="history-search-open" title={`Search every session (${modKey}+Shift+F or ${modKey}+K)`}>
        <Search size={13} /> Search history <kbd>{modKey}+K</kbd>
      </button>
      {error && <p className="error small">History is not available: {error}</p>}
      {data && data.total === 0 && (
        <div className="muted history-empty" data-testid="history-empty">
          <p>
            No sessions yet. Start one from a new tab ({modKey}+T): every conversation is kept here, searchable with {modKey}+Shift+F.
          </p>
          <button className="link-button" onClick={() => openHistoryImport()} data-testid="history-import-open">
            Import the sessions your agents stored before →
          </button>
        </div>
      )}
      {data && data.sessions.length > 0 && (
        <ul className="history-list compact" aria-label="Recent sessions">
          {data.sessions.map((s) => (
            <SessionRow key={s.id} session={s} agentName={names(s.agentId)} live={s.id in live} compact />
          ))}
        </ul>
      )}
      {data && data.total > 0 && (
        <button className="link-button history-all" onClick={() => openHistoryTab()} data-testid="history-open-tab">
          All history ({data.total.toLocaleString()}) →
        </button>
      )}
      {data && !data.indexing.done && <p className="muted small">Indexing older sessions… {data.indexing.pendingMessages.toLocaleString()} messages to go.</p>}
      <HistoryOverlays />
    </div>
  );
}

/** The search dialog and the Undo notices, on top of everything (the sidebar is always mounted). */
function HistoryOverlays() {
  const api = useApi();
  const searchOpen = useHistory((s) => s.searchOpen);
  const undo = useHistory((s) => s.undo);
  return createPortal(
    <>
      {searchOpen && <SearchOverlay />}
      {undo.length > 0 && (
        <div className="history-toasts" aria-live="polite">
          {undo.map((u) => (
            <div key={u.id} className="notice history-toast" role="status" data-testid="history-undo-notice">
              <span>{u.message}</span>
              <button
                className="history-undo"
                data-testid="history-undo"
                onClick={() => {
                  dismissUndo(u.id);
                  void undoDelete(api, u.sessionIds);
                }}
              >
                Undo
              </button>
              <button aria-label="Dismiss" onClick={() => dismissUndo(u.id)}>
                <X size={12} />
              </button>
            </div>
          ))}
        </div>
      )}
    </>,
    document.body,
  );
}
