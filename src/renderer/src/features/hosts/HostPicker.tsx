import { useEffect, useState } from 'react';
import { LOCAL_HOST_ID } from '@shared/contract/hosts';
import { useApi } from '../../app/api-context';
import type { Api } from '../../ipc/client';
import { STATE_TEXT, syncHosts, useHosts } from './state';
import { visibleText } from '../../ui/VisibleText';

/** Where a new session runs: this machine (the default) or one of the SSH hosts. */
export function HostPicker({ value, onChange }: { value: string; onChange(hostId: string): void }) {
  const api = useApi();
  const hosts = useHosts((s) => s.hosts);
  useEffect(() => syncHosts(api), [api]);
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} aria-label="Host" data-testid="new-session-host">
      {hosts.length === 0 && <option value={LOCAL_HOST_ID}>This machine</option>}
      {hosts.map((h) => (
        <option key={h.id} value={h.id}>
          {visibleText(h.label)}
          {h.kind === 'ssh' ? ` (${STATE_TEXT[h.state].toLowerCase()})` : ''}
        </option>
      ))}
    </select>
  );
}

/** Folder names on the host completing what is typed (asked a moment after the typing stops). */
export function useFolderCompletions(hostId: string, folder: string): string[] {
  const api = useApi();
  const [folders, setFolders] = useState<string[]>([]);
  useEffect(() => {
    const prefix = folder.trim();
    if (!prefix.startsWith('/')) return setFolders([]);
    // Only a connected host is asked: completing must not start a connection at each key.
    const host = useHosts.getState().hosts.find((h) => h.id === hostId);
    if (hostId !== LOCAL_HOST_ID && host?.state !== 'connected') return setFolders([]);
    let stale = false;
    const timer = setTimeout(() => {
      void api.call('hosts.completeFolder', { hostId, prefix }).then((r) => {
        if (!stale) setFolders(r.ok ? r.value.folders : []);
      });
    }, 150);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [api, hostId, folder]);
  return folders;
}

/** Null when the folder exists on the host (an SSH host is connected first), else why not. */
export async function folderProblemOnHost(api: Api, hostId: string, path: string): Promise<string | null> {
  const r = await api.call('hosts.checkFolder', { hostId, path });
  if (!r.ok) return r.error.message;
  return r.value.ok ? null : (r.value.message ?? `no such folder: ${path}`);
}
