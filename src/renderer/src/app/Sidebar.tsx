import { PanelLeftClose, PanelLeftOpen } from 'lucide-react';
import { focusNextNeedingYou, useNeedsYouCount } from './attention';
import { sidebarSections } from './contributions';
import { useShortcutHint, withHint } from './shortcuts';
import { useSidebar } from './sidebar-state';
import { VisibleText } from '../ui/VisibleText';

export function Sidebar() {
  const needs = useNeedsYouCount();
  const collapsed = useSidebar((s) => s.collapsed);
  const toggle = useSidebar((s) => s.toggle);
  const nextHint = useShortcutHint('sessions.nextNeedingYou');
  const toggleHint = useShortcutHint('view.toggleSidebar');
  const badge = needs > 0 && (
    <button
      className="needs-you"
      data-testid="needs-you"
      title={nextHint ? `Sessions that need you (${nextHint} goes to each in turn)` : 'Sessions that need you'}
      onClick={() => focusNextNeedingYou()}
    >
      {collapsed ? needs : `${needs} need${needs === 1 ? 's' : ''} you`}
    </button>
  );
  if (collapsed) {
    return (
      <nav className="sidebar collapsed" aria-label="Sidebar" data-testid="sidebar" data-collapsed="true">
        <button className="icon sidebar-toggle" aria-label="Show the sidebar" title={withHint('Show the sidebar', toggleHint)} onClick={toggle} data-testid="sidebar-toggle">
          <PanelLeftOpen size={16} />
        </button>
        {badge}
      </nav>
    );
  }
  return (
    <nav className="sidebar" aria-label="Sidebar" data-testid="sidebar">
      <div className="brand">
        Switchboard
        {badge}
        <span className="spacer" />
        <button className="icon sidebar-toggle" aria-label="Hide the sidebar" title={withHint('Hide the sidebar', toggleHint)} onClick={toggle} data-testid="sidebar-toggle">
          <PanelLeftClose size={16} />
        </button>
      </div>
      {sidebarSections.map((s) => (
        <section key={s.id} className="sidebar-section" data-testid={`sidebar-${s.id}`}>
          <h2><VisibleText text={s.title} /></h2>
          <s.view />
        </section>
      ))}
    </nav>
  );
}
