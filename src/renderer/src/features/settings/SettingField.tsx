import { useEffect, useState } from 'react';
import { z } from 'zod';
import { settingDef, type SettingInput, type SettingKey } from '@shared/contract/settings';
import { useApi } from '../../app/api-context';
import { saveSetting, useSetting } from '../../app/settings';
import { ErrorAlert } from '../../ui/Alert';

type Kind =
  | { kind: 'boolean' }
  | { kind: 'enum'; options: string[] }
  /** `factor`: the stored value is this many times the one shown (a size stored in bytes, shown in GB). */
  | { kind: 'number'; min: number; max: number; int: boolean; factor: number }
  | { kind: 'lines' }
  | { kind: 'text' };

/** How a key is edited, read from its schema (and its unit). */
function kindOf(key: SettingKey): Kind {
  const def = settingDef(key);
  const schema = def.schema;
  // A boolean with per-agent exceptions (a union whose first member is the app-wide boolean) is edited as that boolean.
  if (schema instanceof z.ZodBoolean || (schema instanceof z.ZodUnion && schema.options[0] instanceof z.ZodBoolean)) return { kind: 'boolean' };
  if (schema instanceof z.ZodEnum) return { kind: 'enum', options: schema.options.map(String) };
  if (schema instanceof z.ZodNumber) {
    const factor = def.unit?.factor ?? 1;
    // Shown in a unit, the value is typed with decimals and stored rounded to a whole number.
    return { kind: 'number', min: (schema.minValue ?? -Infinity) / factor, max: (schema.maxValue ?? Infinity) / factor, int: schema.isInt && factor === 1, factor };
  }
  if (schema instanceof z.ZodArray && schema.element instanceof z.ZodString) return { kind: 'lines' };
  return { kind: 'text' };
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const LABELS: Record<string, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** One value a key may take, with its label (choices known only at run time). */
export interface Choice {
  value: string;
  label: string;
}

/** One setting, edited in place; the change is saved (and applied) at once. */
export function SettingField({ k, choices }: { k: SettingKey; choices?: Choice[] | undefined }) {
  const api = useApi();
  const def = settingDef(k);
  const value = useSetting(k) as unknown;
  const kind = kindOf(k);
  const [error, setError] = useState<string | null>(null);
  const save = async (v: unknown) => setError(await saveSetting(api, k, v as SettingInput<typeof k>));
  const reset = async () => {
    const r = await api.call('settings.reset', { key: k });
    setError(r.ok ? null : r.error.message);
  };
  const id = `setting-${k}`;

  let control;
  if (choices) {
    control = (
      <select id={id} value={String(value)} onChange={(e) => void save(e.target.value)} data-testid={id}>
        {choices.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (kind.kind === 'boolean') {
    control = <input id={id} type="checkbox" checked={value === true || (typeof value === 'object' && value !== null)} onChange={(e) => void save(e.target.checked)} data-testid={id} />;
  } else if (kind.kind === 'enum') {
    control = (
      <select id={id} value={String(value)} onChange={(e) => void save(e.target.value)} data-testid={id}>
        {kind.options.map((o) => (
          <option key={o} value={o}>
            {LABELS[o] ?? o}
          </option>
        ))}
      </select>
    );
  } else if (kind.kind === 'lines') {
    control = <LinesInput id={id} value={Array.isArray(value) ? value.map(String) : []} onCommit={(lines) => void save(lines)} />;
  } else if (kind.kind === 'number') {
    const shown = typeof value === 'number' ? String(value / kind.factor) : '';
    control = <TextInput id={id} kind={kind} value={shown} onCommit={(text) => void save(kind.factor === 1 ? Number(text) : Math.round(Number(text) * kind.factor))} />;
  } else {
    control = <TextInput id={id} kind={kind} value={String(value ?? '')} placeholder={def.placeholder} onCommit={(text) => void save(text.trim())} />;
  }
  const isDefault = sameValue(value, def.default);

  return (
    <div className={`setting-field setting-${kind.kind}`} data-key={k}>
      <label htmlFor={id} className="setting-label">
        {def.label}
      </label>
      <div className="setting-control">
        {control}
        {!isDefault && kind.kind !== 'boolean' && !choices && (
          <button className="small" onClick={() => void reset()} title={`Back to the default${def.placeholder ? ` (${def.placeholder})` : ''}`} data-testid={`setting-reset-${k}`}>
            Default
          </button>
        )}
      </div>
      <div className="setting-description muted small">
        {def.description}
        {def.restart && <strong> Applies after restarting {def.restart}.</strong>}
      </div>
      {error && (
        <ErrorAlert testId="setting-error">{error}</ErrorAlert>
      )}
    </div>
  );
}

/** A number or text typed in full, then saved with Enter or on leaving the field. */
function TextInput({ id, kind, value, placeholder, onCommit }: { id: string; kind: Kind; value: string; placeholder?: string | undefined; onCommit(text: string): void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const n = Number(text);
  const valid = kind.kind !== 'number' || (text.trim() !== '' && Number.isFinite(n) && n >= kind.min && n <= kind.max && (!kind.int || Number.isInteger(n)));
  const commit = () => {
    if (!valid) return setText(value);
    if (text !== value) onCommit(text);
  };
  return (
    <input
      id={id}
      type={kind.kind === 'number' ? 'number' : 'text'}
      {...(kind.kind === 'number' ? { min: kind.min, max: kind.max, step: kind.int ? 1 : 'any' } : {})}
      value={text}
      placeholder={placeholder}
      aria-invalid={!valid}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit();
      }}
      data-testid={id}
    />
  );
}

/** A list of strings, one a line (blank lines dropped), saved on leaving the field. */
function LinesInput({ id, value, onCommit }: { id: string; value: string[]; onCommit(lines: string[]): void }) {
  const joined = value.join('\n');
  const [text, setText] = useState(joined);
  useEffect(() => setText(joined), [joined]);
  const commit = () => {
    const lines = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    if (lines.join('\n') !== joined) onCommit(lines);
  };
  return <textarea id={id} rows={6} value={text} onChange={(e) => setText(e.target.value)} onBlur={commit} data-testid={id} />;
}
