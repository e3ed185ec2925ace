import { create } from 'zustand';
import type { Api } from '../../ipc/client';

/**
 * Shared state of the history feature: a change counter (views refetch when it moves), the search
 * overlay, and the undo notices of deleted sessions.
 */

interface HistoryState {
  /** Bumped when sessions are renamed, pinned, deleted or restored. */
  version: number;
  /** Bumped (at most every second) when live sessions change: lists show new sessions and activity. */
  activity: number;
  searchOpen: boolean;
  /** The History tab shows the import of the agents' own sessions. */
  importOpen: boolean;
  undo: UndoNotice[];
}

export interface UndoNotice {
  id: number;
  sessionIds: string[];
  message: string;
}

export const useHistory = create<HistoryState>(() => ({ version: 0, activity: 0, searchOpen: false, importOpen: false, undo: [] }));

export const bumpHistory = (): void => useHistory.setState((s) => ({ version: s.version + 1 }));

export function openSearch(): void {
  useHistory.setState({ searchOpen: true });
}
export function setImportOpen(importOpen: boolean): void {
  useHistory.setState({ importOpen });
}
export function closeSearch(): void {
  useHistory.setState({ searchOpen: false });
}

let nextUndo = 1;
export const UNDO_MS = 12_000;

export function pushUndo(sessionIds: string[], message: string): void {
  const id = nextUndo++;
  useHistory.setState((s) => ({ undo: [...s.undo.slice(-2), { id, sessionIds, message }] }));
  setTimeout(() => dismissUndo(id), UNDO_MS);
}
export function dismissUndo(id: number): void {
  useHistory.setState((s) => ({ undo: s.undo.filter((u) => u.id !== id) }));
}

let poll: ReturnType<typeof setTimeout> | null = null;

/** Looks again in a moment (while old messages are still being indexed); one timer for all views. */
export function pollSoon(ms = 1500): void {
  if (poll) return;
  poll = setTimeout(() => {
    poll = null;
    useHistory.setState((s) => ({ activity: s.activity + 1 }));
  }, ms);
}

const synced = new WeakSet<Api>();

/** Keeps `version` moving with the core's events (once per connection). */
export function syncHistory(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('history.changed', () => bumpHistory());
  // New sessions and new activity: refresh, at most every second.
  let timer: ReturnType<typeof setTimeout> | null = null;
  api.on('session.state', () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      useHistory.setState((s) => ({ activity: s.activity + 1 }));
    }, 1000);
  });
}
