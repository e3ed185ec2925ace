import type { Api } from '../../ipc/client';
import { fetchSetting, saveSetting } from '../../app/settings';

/** Settings key: folders sessions were started in, most recent first. */
export const RECENT_FOLDERS_KEY = 'sessions.recentFolders';
const MAX_RECENT = 12;

export async function loadRecentFolders(api: Api): Promise<string[]> {
  return ((await fetchSetting(api, RECENT_FOLDERS_KEY)) ?? []).slice(0, MAX_RECENT);
}

export async function rememberFolder(api: Api, folder: string): Promise<void> {
  const current = await loadRecentFolders(api);
  const next = [folder, ...current.filter((f) => f !== folder)].slice(0, MAX_RECENT);
  await saveSetting(api, RECENT_FOLDERS_KEY, next);
}

export async function forgetFolder(api: Api, folder: string): Promise<string[]> {
  const next = (await loadRecentFolders(api)).filter((f) => f !== folder);
  await saveSetting(api, RECENT_FOLDERS_KEY, next);
  return next;
}
