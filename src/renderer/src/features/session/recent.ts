import type { Api } from '../../ipc/client';

/** Settings key: folders sessions were started in, most recent first. */
export const RECENT_FOLDERS_KEY = 'sessions.recentFolders';
const MAX_RECENT = 12;

export async function loadRecentFolders(api: Api): Promise<string[]> {
  const r = await api.call('settings.get', { key: RECENT_FOLDERS_KEY });
  if (!r.ok || !Array.isArray(r.value.value)) return [];
  return r.value.value.filter((v): v is string => typeof v === 'string').slice(0, MAX_RECENT);
}

export async function rememberFolder(api: Api, folder: string): Promise<void> {
  const current = await loadRecentFolders(api);
  const next = [folder, ...current.filter((f) => f !== folder)].slice(0, MAX_RECENT);
  await api.call('settings.set', { key: RECENT_FOLDERS_KEY, value: next });
}

export async function forgetFolder(api: Api, folder: string): Promise<string[]> {
  const next = (await loadRecentFolders(api)).filter((f) => f !== folder);
  await api.call('settings.set', { key: RECENT_FOLDERS_KEY, value: next });
  return next;
}
