import type { ReactNode } from 'react';

/** The row of buttons that ends a form (the primary action first). */
export function FormActions({ children }: { children: ReactNode }) {
  return <div className="form-actions">{children}</div>;
}
