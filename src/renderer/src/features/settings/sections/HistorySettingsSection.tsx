import { useCallback, useEffect, useState } from 'react';
import type { BackupInfo } from '@shared/contract/history';
import { formatBytes } from '@shared/format-bytes';
import { useApi } from '../../../app/api-context';
import { SectionFields } from './GenericSection';

/** Daily backups of the store: how many are kept, the ones there are, and one made now. */
export function HistorySettingsSection() {
  const api = useApi();
  const [backups, setBackups] = useState<{ dir: string; backups: BackupInfo[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    void api.call('store.backups.list', {}).then((r) => (r.ok ? setBackups(r.value) : setError(r.error.message)));
  }, [api]);
  useEffect(load, [load]);
  const backUp = async () => {
    setBusy(true);
    const r = await api.call('store.backups.create', {});
    setBusy(false);
    setError(r.ok ? null : r.error.message);
    load();
  };
  return (
    <>
      <SectionFields section="history" />
      <div className="settings-backups" data-testid="settings-backups">
        <p className="muted small">
          {backups ? (
            <>
              {backups.backups.length} backup{backups.backups.length === 1 ? '' : 's'} in <code>{backups.dir}</code>
            </>
          ) : (
            '…'
          )}
        </p>
        {backups && backups.backups.length > 0 && (
          <ul className="small">
            {backups.backups.map((b) => (
              <li key={b.id}>
                {new Date(b.createdAt).toLocaleString()} · {formatBytes(b.bytes)}
              </li>
            ))}
          </ul>
        )}
        <button disabled={busy} onClick={() => void backUp()} data-testid="backup-now">
          {busy ? 'Backing up…' : 'Back up now'}
        </button>
        {error && <div className="error small">{error}</div>}
      </div>
    </>
  );
}
