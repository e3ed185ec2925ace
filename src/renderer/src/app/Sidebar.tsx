import { sidebarSections } from './registry';

export function Sidebar() {
  return (
    <nav className="sidebar" aria-label="Sidebar">
      <div className="brand">Switchboard</div>
      {sidebarSections.map((s) => (
        <section key={s.id} className="sidebar-section" data-testid={`sidebar-${s.id}`}>
          <h2>{s.title}</h2>
          <s.view />
        </section>
      ))}
    </nav>
  );
}
