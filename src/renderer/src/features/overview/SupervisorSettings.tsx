import { useEffect, useState } from 'react';
import { SUPERVISOR_DEFAULTS, SUPERVISOR_SETTINGS, supervisorNumber, type SupervisorNumberSetting } from '@shared/contract/supervisor';
import { useApi } from '../../app/api-context';

const FIELDS: Array<{ key: SupervisorNumberSetting; label: string; unit: string; hint: string; max: number }> = [
  { key: 'idleStopMinutes', label: 'Stop an agent with no open session after', unit: 'min', hint: '0: never', max: 24 * 60 },
  { key: 'requestTimeoutSeconds', label: 'A request the agent leaves unanswered (writing nothing) fails after', unit: 's', hint: '0: never', max: 24 * 3600 },
  { key: 'restartDelaySeconds', label: 'First automatic restart after', unit: 's', hint: `doubles on each crash, at most ${SUPERVISOR_DEFAULTS.maxRestartDelaySeconds} s`, max: 3600 },
  { key: 'maxRestarts', label: 'At most this many automatic restarts', unit: '', hint: '', max: 100 },
  { key: 'restartWindowMinutes', label: '…within', unit: 'min', hint: 'then the agent is left stopped', max: 24 * 60 },
  { key: 'floodPerSecond', label: 'Flood control: an agent writing more messages a second than', unit: '/s', hint: '0: never throttle', max: 10_000_000 },
  { key: 'floodSeconds', label: '…for this long', unit: 's', hint: '', max: 3600 },
  { key: 'floodThrottlePerSecond', label: '…is then read at', unit: '/s', hint: 'until it calms down; nothing is dropped', max: 10_000_000 },
];

/** The supervisor's settings (restarts, idle stop, hang timeout, flood control), saved in the core's settings. */
export function SupervisorSettings() {
  const api = useApi();
  const [values, setValues] = useState<Partial<Record<keyof typeof SUPERVISOR_SETTINGS, unknown>>>({});
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    void (async () => {
      const entries = await Promise.all(
        (Object.keys(SUPERVISOR_SETTINGS) as Array<keyof typeof SUPERVISOR_SETTINGS>).map(async (k) => {
          const r = await api.call('settings.get', { key: SUPERVISOR_SETTINGS[k] });
          return [k, r.ok ? r.value.value : undefined] as const;
        }),
      );
      if (!stale) setValues(Object.fromEntries(entries));
    })();
    return () => {
      stale = true;
    };
  }, [api]);

  const save = async (k: keyof typeof SUPERVISOR_SETTINGS, value: number | boolean) => {
    setValues((v) => ({ ...v, [k]: value }));
    const r = await api.call('settings.set', { key: SUPERVISOR_SETTINGS[k], value });
    setError(r.ok ? null : r.error.message);
  };

  const numberOf = (k: SupervisorNumberSetting): number => supervisorNumber(k, values[k]);
  const autoRestart = typeof values.autoRestart === 'boolean' ? values.autoRestart : SUPERVISOR_DEFAULTS.autoRestart;

  return (
    <details className="supervisor-settings" data-testid="supervisor-settings">
      <summary>Agent supervision</summary>
      <p className="muted small">Changes apply at once, to running agents too.</p>
      <label className="small">
        <input type="checkbox" checked={autoRestart} onChange={(e) => void save('autoRestart', e.target.checked)} data-testid="setting-autoRestart" /> Restart an agent
        that crashes while it has open sessions, and bring the sessions back
      </label>
      {FIELDS.map((f) => (
        <NumberField key={`${f.key}:${numberOf(f.key)}`} field={f} value={numberOf(f.key)} onSave={(n) => void save(f.key, n)} />
      ))}
      {error && <div className="error small">{error}</div>}
    </details>
  );
}

function NumberField({ field, value, onSave }: { field: (typeof FIELDS)[number]; value: number; onSave(n: number): void }) {
  const [text, setText] = useState(String(value));
  const n = Number(text);
  const valid = text.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= field.max;
  const commit = () => {
    if (valid && n !== value) onSave(n);
    if (!valid) setText(String(value));
  };
  return (
    <label className="small supervisor-field">
      <span>{field.label}</span>
      <input
        type="number"
        min={0}
        max={field.max}
        value={text}
        aria-invalid={!valid}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit();
        }}
        data-testid={`setting-${field.key}`}
      />
      <span className="muted">
        {field.unit}
        {field.hint ? ` (${field.hint})` : ''}
      </span>
    </label>
  );
}
