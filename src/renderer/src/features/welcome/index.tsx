import { registerSidebarSection } from '../../app/registry';

// Placeholder until the history feature registers its own section (the agents feature has its own).
function HistoryEmpty() {
  return <p className="muted">No sessions yet. Start one from a new tab (Ctrl+T); every session is kept here.</p>;
}

registerSidebarSection({ id: 'history', title: 'History', order: 20, view: HistoryEmpty });
