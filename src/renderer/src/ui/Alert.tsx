import type { ReactNode } from 'react';

/** A short error under the control or form it belongs to, announced to screen readers. */
export function ErrorAlert({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <div className="error small" role="alert" data-testid={testId}>
      {children}
    </div>
  );
}
