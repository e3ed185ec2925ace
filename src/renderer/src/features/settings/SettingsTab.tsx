import { useEffect, useRef, useState } from 'react';
import type { TabViewProps } from '../../app/contributions';
import { matchSections } from './sections';
import { VisibleText } from '../../ui/VisibleText';

/** The Settings tab: a search box, the sections it matches, each setting applied as soon as it changes. */
export function SettingsTab({ tab, active }: TabViewProps) {
  const [query, setQuery] = useState('');
  const search = useRef<HTMLInputElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const sections = matchSections(query);
  const target = typeof tab.props.section === 'string' ? tab.props.section : null;
  const nonce = tab.props.nonce;

  useEffect(() => {
    if (active) search.current?.focus();
  }, [active]);

  // Opened for a section (e.g. from the overview): show it.
  useEffect(() => {
    if (!target) return;
    setQuery('');
    requestAnimationFrame(() => body.current?.querySelector(`[data-section="${target}"]`)?.scrollIntoView({ block: 'start' }));
  }, [target, nonce]);

  const go = (id: string) => body.current?.querySelector(`[data-section="${id}"]`)?.scrollIntoView({ block: 'start', behavior: 'smooth' });

  return (
    <div className="settings" data-testid="settings-tab">
      <nav className="settings-nav" aria-label="Settings sections">
        <input
          ref={search}
          type="search"
          className="settings-search"
          placeholder="Search settings"
          aria-label="Search settings"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          data-testid="settings-search"
        />
        <ul>
          {sections.map((s) => (
            <li key={s.id}>
              <button className="link-button" onClick={() => go(s.id)} data-testid={`settings-nav-${s.id}`}>
                <VisibleText text={s.title} />
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <div className="settings-body" ref={body}>
        {sections.length === 0 && (
          <p className="muted" data-testid="settings-no-match">
            No setting matches “{query}”.
          </p>
        )}
        {sections.map((s) => (
          <section key={s.id} className="settings-section" data-testid="settings-section" data-section={s.id} aria-labelledby={`settings-h-${s.id}`}>
            <h3 id={`settings-h-${s.id}`}><VisibleText text={s.title} /></h3>
            <s.view />
          </section>
        ))}
      </div>
    </div>
  );
}
