import { useEffect, useState } from 'react';
import type { KeyBinding } from '@shared/contract/settings';
import { useApi } from '../../../app/api-context';
import { saveSetting } from '../../../app/settings';
import { SectionFields } from './GenericSection';
import {
  bindingsOf,
  comboOf,
  commandsBoundTo,
  normalizeCombo,
  setRecordingShortcut,
  shortcuts,
  showCombo,
  useBindings,
  type ShortcutCommand,
} from '../../../app/shortcuts';

/** A combination the shell in a terminal does not need: two modifiers, or a key that types nothing. */
const safeInTerminal = (keys: string): boolean => {
  const parts = keys.split('+');
  const key = parts.pop()!;
  return parts.length >= 2 || parts.includes('Alt') || key.length > 1;
};

interface Pending {
  commandId: string;
  keys: string;
  /** Commands that have this combination now. */
  takenBy: ShortcutCommand[];
}

/** The shortcuts: each command with its keys, which can be changed (press the new keys), removed or reset. */
export function KeyboardSection() {
  const api = useApi();
  const changed = useBindings();
  const [recordingFor, setRecordingFor] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [error, setError] = useState<string | null>(null);

  const save = async (next: Record<string, KeyBinding[]>) => {
    setError(await saveSetting(api, 'keyboard.bindings', next));
  };
  const assign = async (commandId: string, keys: string, takeFrom: ShortcutCommand[]) => {
    const next: Record<string, KeyBinding[]> = { ...changed, [commandId]: [{ keys, inTerminal: safeInTerminal(keys) }] };
    for (const other of takeFrom) next[other.id] = bindingsOf(other, changed).filter((b) => normalizeCombo(b.keys) !== normalizeCombo(keys));
    setPending(null);
    await save(next);
  };
  const reset = async (commandId: string) => {
    const next = { ...changed };
    delete next[commandId];
    await save(next);
  };

  useEffect(() => {
    if (!recordingFor) return;
    setRecordingShortcut(true);
    const onKey = (e: KeyboardEvent) => {
      e.preventDefault();
      e.stopPropagation();
      if (e.key === 'Escape' && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey) {
        setRecordingFor(null);
        return;
      }
      const keys = comboOf(e);
      if (!keys) return;
      if (!keys.includes('+') && keys.length === 1) {
        setError(`${showCombo(keys)} alone types a character; add Ctrl, Alt or ${showCombo('Mod')}.`);
        return;
      }
      setRecordingFor(null);
      const takenBy = commandsBoundTo(keys, recordingFor, changed);
      if (takenBy.length > 0) setPending({ commandId: recordingFor, keys, takenBy });
      else void assign(recordingFor, keys, []);
    };
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      setRecordingShortcut(false);
    };
  }, [recordingFor]);

  return (
    <div>
      <p className="muted small">
        Click <b>Change</b> and press the new keys (Esc cancels). Keys marked “also in terminals” work while a terminal has the focus.
      </p>
      {error ? (
        <p className="error" role="alert" data-testid="shortcut-error">
          {error}
        </p>
      ) : null}
      <table className="settings-table" data-testid="shortcuts-table">
        <thead>
          <tr>
            <th>Does</th>
            <th>Keys</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {shortcuts.map((c) => {
            const bindings = bindingsOf(c, changed);
            const isChanged = Object.prototype.hasOwnProperty.call(changed, c.id);
            return (
              <tr key={c.id} data-testid="shortcut-row" data-command={c.id}>
                <td>{c.description}</td>
                <td>
                  {recordingFor === c.id ? (
                    <span className="shortcut-recording" data-testid="shortcut-recording">
                      Press the new keys…
                    </span>
                  ) : bindings.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    bindings.map((b) => (
                      <span key={b.keys} className="shortcut-binding">
                        <kbd>{showCombo(b.keys)}</kbd>
                        {b.inTerminal ? <span className="muted small"> (also in terminals)</span> : null}{' '}
                      </span>
                    ))
                  )}
                  {pending?.commandId === c.id ? (
                    <div className="shortcut-conflict" role="alert" data-testid="shortcut-conflict">
                      <kbd>{showCombo(pending.keys)}</kbd> is used by {pending.takenBy.map((o) => `“${o.description}”`).join(', ')}.{' '}
                      <button type="button" onClick={() => void assign(pending.commandId, pending.keys, pending.takenBy)}>
                        Use it here instead
                      </button>{' '}
                      <button type="button" onClick={() => setPending(null)}>
                        Cancel
                      </button>
                    </div>
                  ) : null}
                </td>
                <td className="shortcut-actions">
                  <button type="button" onClick={() => (setError(null), setPending(null), setRecordingFor(recordingFor === c.id ? null : c.id))}>
                    {recordingFor === c.id ? 'Cancel' : 'Change'}
                  </button>
                  {bindings.length > 0 ? (
                    <button type="button" title="No keys for this command" onClick={() => void save({ ...changed, [c.id]: [] })}>
                      Remove
                    </button>
                  ) : null}
                  {isChanged ? (
                    <button type="button" onClick={() => void reset(c.id)}>
                      Reset
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <SectionFields section="keyboard" except={['keyboard.bindings']} />
    </div>
  );
}
