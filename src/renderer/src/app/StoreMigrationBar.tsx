import { useEffect, useState } from 'react';
import type { StoreMigration } from '@shared/contract/app';
import type { Api } from '../ipc/client';
import { useNotices } from './notices';

const LABELS: Record<StoreMigration['phase'], string> = {
  indexing: 'Rebuilding the search index',
  packing: 'Compressing stored sessions',
  vacuuming: 'Shrinking the store file',
  done: 'Store migrated',
};

/** A progress bar while the store is migrated in place (history works meanwhile; search may miss older sessions). */
export function StoreMigrationBar({ api }: { api: Api }) {
  const [progress, setProgress] = useState<StoreMigration | null>(null);
  useEffect(
    () =>
      api.on('app.storeMigration', (p) => {
        if (p.phase !== 'done') return setProgress(p);
        setProgress(null);
        const speed = p.eventsPerSecond === null ? '' : ` (${p.eventsPerSecond.toLocaleString()} events/s)`;
        useNotices.getState().push('info', `The store was migrated to its compact format${speed}.`);
      }),
    [api],
  );
  if (!progress) return null;
  const fraction = progress.total > 0 ? Math.min(1, progress.done / progress.total) : 0;
  const label = `${LABELS[progress.phase]}: ${progress.done.toLocaleString()} of ${progress.total.toLocaleString()}`;
  return (
    <div className="store-migration" role="status" data-testid="store-migration">
      <span>{label}</span>
      <progress max={1} value={fraction} aria-label={LABELS[progress.phase]} />
    </div>
  );
}
