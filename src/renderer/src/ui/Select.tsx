import type { ReactNode, SelectHTMLAttributes } from 'react';

export interface SelectOption<T extends string> {
  value: T;
  label: ReactNode;
  title?: string;
}

type Attributes = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange' | 'children'> & { 'data-testid'?: string };

/** A native <select> of `options`, led by an option of value '' labelled `empty` when given ("All agents"). */
export function Select<T extends string>({
  value,
  options,
  onChange,
  empty,
  ...attributes
}: { value: T | ''; options: ReadonlyArray<SelectOption<T>>; onChange(value: T): void; empty?: string } & Attributes) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value as T)} {...attributes}>
      {empty !== undefined && <option value="">{empty}</option>}
      {options.map((o) => (
        <option key={o.value} value={o.value} title={o.title}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

/** A choice of agent, by id, shown by name. */
export function AgentSelect({
  agents,
  ...props
}: { agents: ReadonlyArray<{ id: string; name: string }>; value: string; onChange(agentId: string): void; empty?: string } & Attributes) {
  return <Select options={agents.map((a) => ({ value: a.id, label: a.name }))} {...props} />;
}
