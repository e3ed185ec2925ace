import { focusNextNeedingYou, useNeedsYouCount } from './attention';
import { sidebarSections } from './contributions';

export function Sidebar() {
  const needs = useNeedsYouCount();
  return (
    <nav className="sidebar" aria-label="Sidebar">
      <div className="brand">
        Switchboard
        {needs > 0 && (
          <button className="needs-you" data-testid="needs-you" title="Sessions that need you (Ctrl+J cycles through them)" onClick={() => focusNextNeedingYou()}>
            {needs} need{needs === 1 ? 's' : ''} you
          </button>
        )}
      </div>
      {sidebarSections.map((s) => (
        <section key={s.id} className="sidebar-section" data-testid={`sidebar-${s.id}`}>
          <h2>{s.title}</h2>
          <s.view />
        </section>
      ))}
    </nav>
  );
}
