import { registerSidebarSection } from '../../app/registry';

// Placeholders until the agents and history features register their own sections.
function AgentsEmpty() {
  return <p className="muted" data-testid="agents-empty">No agents yet. Install one from the ACP Registry, or add your own command.</p>;
}
function HistoryEmpty() {
  return <p className="muted">No sessions yet. Start one from a new tab (Ctrl+T); every session is kept here.</p>;
}

registerSidebarSection({ id: 'agents', title: 'Agents', order: 10, view: AgentsEmpty });
registerSidebarSection({ id: 'history', title: 'History', order: 20, view: HistoryEmpty });
