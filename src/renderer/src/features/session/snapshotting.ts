import { create } from 'zustand';
import type { PayloadOf } from '@shared/contract';
import type { Api } from '../../ipc/client';

type Snapshotting = Omit<PayloadOf<'checkpoints.snapshotting'>, 'done' | 'sessionId'>;

/** Sessions whose turn waits for Switchboard's snapshot of their folder (by session id; one folder shown). */
export const useSnapshotting = create<{ bySession: Record<string, Snapshotting> }>(() => ({ bySession: {} }));

const synced = new WeakSet<Api>();

/** Keeps the store in step with the core (once per connection). */
export function syncSnapshotting(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('checkpoints.snapshotting', ({ sessionId, done, ...what }) => {
    const { [sessionId]: _was, ...rest } = useSnapshotting.getState().bySession;
    useSnapshotting.setState({ bySession: done ? rest : { ...rest, [sessionId]: what } });
  });
}

/** "Snapshotting 12,408 files… 40 %", or "Snapshotting the folder…" while the count is not known. */
export function snapshottingText(s: Snapshotting): string {
  const what = s.files !== null ? `Snapshotting ${s.files.toLocaleString('en-US')} files…` : 'Snapshotting the folder…';
  return s.percent !== null && s.percent !== undefined ? `${what} ${s.percent} %` : what;
}
