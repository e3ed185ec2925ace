import { useState } from 'react';
import type { StoreStatus } from '@shared/contract/app';
import { useApi } from './api-context';
import { VisibleText } from '../ui/VisibleText';

/** Shown instead of the app when the store cannot be opened: never a silent empty history. */
export function StoreErrorScreen({ status, onRecovered }: { status: Extract<StoreStatus, { ok: false }>; onRecovered(): void }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [movedTo, setMovedTo] = useState<string | null>(null);
  const explain: Record<typeof status.kind, string> = {
    corrupt: 'The history database is damaged.',
    unreadable: 'The history database could not be read.',
    locked: 'The history database is locked by another program (another Switchboard?).',
    newer_schema: 'The history database was written by a newer version of Switchboard.',
  };
  const reset = async () => {
    setBusy(true);
    const r = await api.call('app.resetStore', {});
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    setMovedTo(r.value.movedTo);
    if (r.value.store.ok) onRecovered();
    else setError(r.value.store.message);
  };
  return (
    <div className="store-error" role="alert" data-testid="store-error">
      <h1>Switchboard cannot open its history</h1>
      <p>{explain[status.kind]}</p>
      <dl>
        <dt>File</dt>
        <dd>
          <code data-testid="store-path"><VisibleText text={status.path} /></code>
        </dd>
        <dt>What SQLite said</dt>
        <dd>
          <code>{status.message}</code>
        </dd>
      </dl>
      <p>
        You can move the damaged file aside and start with a fresh, empty history. Nothing is deleted: the old file is kept next
        to it, renamed, so it can be recovered later.
      </p>
      <button className="primary" disabled={busy} onClick={() => void reset()}>
        Move it aside and start fresh
      </button>
      {movedTo && (
        <p>
          The old file was kept as <code>{movedTo}</code>.
        </p>
      )}
      {error && <p className="error">{error}</p>}
    </div>
  );
}
