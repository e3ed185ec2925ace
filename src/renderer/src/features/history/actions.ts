import { setImportOpen } from './state';
import { useNotices } from '../../app/notices';
import type { Api } from '../../ipc/client';
import { useTabs } from '../../state/tabs';
import { pushUndo, UNDO_MS } from './state';

export const HISTORY_TAB_ID = 'history';

/** Opens (or focuses) the History tab. */
export function openHistoryTab(): string {
  return useTabs.getState().open({ id: HISTORY_TAB_ID, kind: 'history', title: 'History', props: {} });
}

/** The History tab, at the import of the agents' own sessions. */
export function openHistoryImport(): string {
  setImportOpen(true);
  return openHistoryTab();
}

let nonce = 0;

/**
 * Opens a stored session in a transcript tab (one per session), scrolled to the entry of message `seq`
 * when given (a search hit), else to its end.
 */
export function openTranscript(session: { id: string; title: string; agentId: string; cwd: string }, seq?: number): string {
  const id = `transcript:${session.id}`;
  const tabs = useTabs.getState();
  const title = session.title;
  const props = { sessionId: session.id, agentId: session.agentId, cwd: session.cwd, ...(seq !== undefined ? { seq, nonce: ++nonce } : {}) };
  if (tabs.tabs[id]) {
    if (seq !== undefined) tabs.update(id, { props });
    tabs.activate(id);
    return id;
  }
  return tabs.open({ id, kind: 'transcript', title: title || 'Session', props });
}

const fail = (what: string, message: string): void => useNotices.getState().push('error', `${what}: ${message}`);

export async function renameSession(api: Api, sessionId: string, title: string | null): Promise<boolean> {
  const r = await api.call('history.rename', { sessionId, title });
  if (!r.ok) fail('Could not rename the session', r.error.message);
  else {
    const tab = useTabs.getState().tabs[`transcript:${sessionId}`];
    if (tab && r.value.session.title) useTabs.getState().update(tab.id, { title: r.value.session.title });
  }
  return r.ok;
}

export async function pinSession(api: Api, sessionId: string, pinned: boolean): Promise<void> {
  const r = await api.call('history.pin', { sessionId, pinned });
  if (!r.ok) fail(pinned ? 'Could not pin the session' : 'Could not unpin the session', r.error.message);
}

/**
 * Archive (or unarchive) in History, then at the session's agent when it offers session/archive. History's archive
 * stands whatever the agent answers; its refusal is said in a notice.
 */
export async function archiveSession(api: Api, sessionId: string, archived: boolean, label: string): Promise<void> {
  const r = await api.call('history.archive', { sessionIds: [sessionId], archived });
  if (!r.ok) return fail(archived ? 'Could not archive' : 'Could not unarchive', r.error.message);
  const a = await api.call('sessions.archiveOnAgent', { sessionId, archived });
  if (!a.ok) fail(`${label} is ${archived ? 'archived' : 'unarchived'} in History, but not at its agent`, a.error.message);
  else if (a.value.done) useNotices.getState().push('info', `${label}: ${a.value.reason}`);
}

/** Sessions restored (Undo) since they were deleted: their agents' copies are kept. */
const undone = new Set<string>();

/**
 * Soft delete with an Undo notice. When the notice's time is up without Undo, the agents' own copies are
 * deleted too (session/delete, only for agents that advertise it), and a notice says so: from then on the
 * transcript can still be restored from "Recently deleted", but no longer reopened live.
 */
export async function deleteSessions(api: Api, sessionIds: string[], label: string): Promise<void> {
  const r = await api.call('history.delete', { sessionIds });
  if (!r.ok) return fail('Could not delete', r.error.message);
  if (r.value.deleted.length === 0) return;
  const days = Math.max(1, Math.round((r.value.purgeAfter - Date.now()) / 86_400_000));
  for (const id of r.value.deleted) undone.delete(id);
  pushUndo(r.value.deleted, `Deleted ${label}. It is kept ${days} day${days === 1 ? '' : 's'} before it is gone for good.`);
  const deleted = r.value.deleted;
  setTimeout(() => void deleteOnAgents(api, deleted.filter((id) => !undone.has(id)), label), UNDO_MS + 250);
}

async function deleteOnAgents(api: Api, sessionIds: string[], label: string): Promise<void> {
  const reasons: string[] = [];
  for (const sessionId of sessionIds) {
    const r = await api.call('sessions.deleteOnAgent', { sessionId });
    if (!r.ok) fail(`Could not delete ${label} from its agent`, r.error.message);
    else if (r.value.deleted) reasons.push(r.value.reason);
  }
  if (reasons.length === 1) useNotices.getState().push('info', `${label}: ${reasons[0]}`);
  else if (reasons.length > 1) useNotices.getState().push('info', `${reasons.length} sessions were deleted from their agents' own lists too (session/delete); undo brings back their stored transcripts only.`);
}

export async function undoDelete(api: Api, sessionIds: string[]): Promise<void> {
  for (const id of sessionIds) undone.add(id);
  const r = await api.call('history.undoDelete', { sessionIds });
  if (!r.ok) fail('Could not restore', r.error.message);
}

/** Saves text as a file through the browser's download (works in Electron and in a browser). */
export function downloadText(text: string, fileName: string, mimeType: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${mimeType};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export async function exportSession(api: Api, sessionId: string, format: 'markdown' | 'json'): Promise<void> {
  const r = await api.call('history.export', { sessionId, format });
  if (!r.ok) return fail('Could not export the session', r.error.message);
  downloadText(r.value.text, r.value.fileName, r.value.mimeType);
}
