import { useEffect, useState } from 'react';
import { z } from 'zod';
import { settingDef, type SettingInput, type SettingKey } from '@shared/contract/settings';
import { useApi } from '../../app/api-context';
import { saveSetting, useSetting } from '../../app/settings';
import { ErrorAlert } from '../../ui/Alert';

type Kind = { kind: 'boolean' } | { kind: 'enum'; options: string[] } | { kind: 'number'; min: number; max: number; int: boolean } | { kind: 'text' };

/** How a key is edited, read from its schema. */
function kindOf(key: SettingKey): Kind {
  const schema = settingDef(key).schema;
  // A boolean with per-agent exceptions (a union whose first member is the app-wide boolean) is edited as that boolean.
  if (schema instanceof z.ZodBoolean || (schema instanceof z.ZodUnion && schema.options[0] instanceof z.ZodBoolean)) return { kind: 'boolean' };
  if (schema instanceof z.ZodEnum) return { kind: 'enum', options: schema.options.map(String) };
  if (schema instanceof z.ZodNumber) return { kind: 'number', min: schema.minValue ?? -Infinity, max: schema.maxValue ?? Infinity, int: schema.isInt };
  return { kind: 'text' };
}

const LABELS: Record<string, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** One setting, edited in place; the change is saved (and applied) at once. */
export function SettingField({ k }: { k: SettingKey }) {
  const api = useApi();
  const def = settingDef(k);
  const value = useSetting(k) as unknown;
  const kind = kindOf(k);
  const [error, setError] = useState<string | null>(null);
  const save = async (v: unknown) => setError(await saveSetting(api, k, v as SettingInput<typeof k>));
  const id = `setting-${k}`;

  let control;
  if (kind.kind === 'boolean') {
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
  } else {
    control = <TextInput id={id} kind={kind} value={String(value ?? '')} onCommit={(text) => void save(kind.kind === 'number' ? Number(text) : text)} />;
  }

  return (
    <div className={`setting-field setting-${kind.kind}`} data-key={k}>
      <label htmlFor={id} className="setting-label">
        {def.label}
      </label>
      <div className="setting-control">{control}</div>
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
function TextInput({ id, kind, value, onCommit }: { id: string; kind: Kind; value: string; onCommit(text: string): void }) {
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
