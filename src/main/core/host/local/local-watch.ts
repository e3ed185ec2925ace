import { resolve } from 'node:path';
import { toDisposable, type Disposable } from '../../base/lifecycle';
import type { WatchEvent, WatchOptions } from '../host';

/**
 * Watches a folder of this machine with @parcel/watcher (inotify, FSEvents, ReadDirectoryChangesW: the
 * watcher VS Code uses). Loaded on first use, so that a platform without its prebuilt binary only loses
 * watching (`watch` rejects; the caller scans instead). A watch error, or the folder itself going away, is
 * reported as 'rescan'. Note: on Linux, @parcel/watcher 2.5 drops the kernel's queue-overflow notice
 * silently; a caller that must not miss a change rescans now and then as well.
 */
export async function watchLocal(root: string, onEvent: (event: WatchEvent) => void, options: WatchOptions = {}): Promise<Disposable> {
  const watcher = await import('@parcel/watcher');
  const folder = resolve(root);
  let open = true;
  const subscription = await watcher.subscribe(
    folder,
    (err, events) => {
      if (!open) return;
      if (err) {
        onEvent({ kind: 'rescan', reason: err.message });
        return;
      }
      if (events.some((e) => e.path === folder && e.type === 'delete')) {
        onEvent({ kind: 'rescan', reason: 'the watched folder was removed' });
        return;
      }
      if (events.length > 0) onEvent({ kind: 'changes', changes: events.map((e) => ({ path: e.path, kind: e.type })) });
    },
    options.ignore ? { ignore: [...options.ignore] } : {},
  );
  return toDisposable(async () => {
    if (!open) return;
    open = false;
    // A folder being removed under the watch takes its kernel watches with it: @parcel/watcher then fails
    // to remove them ("Invalid argument"). The watch is over either way, and nobody awaits a dispose.
    await subscription.unsubscribe().catch(() => undefined);
  });
}
