import { shortcuts } from '../../../app/shortcuts';

const isMac = typeof navigator !== 'undefined' && navigator.platform.toLowerCase().includes('mac');
const show = (keys: string) => keys.replace(/Mod/g, isMac ? '⌘' : 'Ctrl').split('+').join(' + ');

/** The keyboard shortcuts (fixed; "also in terminals" ones work while a terminal has the focus). */
export function KeyboardSection() {
  return (
    <table className="settings-table" data-testid="shortcuts-table">
      <thead>
        <tr>
          <th>Keys</th>
          <th>Does</th>
        </tr>
      </thead>
      <tbody>
        {shortcuts.map((s) => (
          <tr key={s.keys}>
            <td>
              <kbd>{show(s.keys)}</kbd>
            </td>
            <td>
              {s.description}
              {s.inTerminal && !s.description.includes('terminal') ? <span className="muted small"> (also in terminals)</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
