import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { toDisposable, type Disposable } from '../../base/lifecycle';
import type { WatchEvent, WatchOptions } from '../host';

/**
 * @parcel/watcher's subscribes and unsubscribes, one at a time across the process. Its native side keeps one
 * backend (inotify…) for all watches of the process and drops it, on a worker thread, when an unsubscribe
 * leaves it empty: a subscribe made meanwhile lands on the dropped backend and never reports anything (a
 * folder watched again right after its watch stopped: a session closed, then a turn in the same folder).
 * It also shares one native watcher between watches of one folder with the same options.
 */
let queue: Promise<unknown> = Promise.resolve();

/**
 * One subscription of the process's own, on an empty private folder, never ended: the backend then never becomes
 * empty, so it is never dropped while a watch starts (an unsubscribe resolves before its worker has dropped it).
 */
let keepAlive: Promise<unknown> | null = null;
function backendKeptAlive(watcher: typeof import('@parcel/watcher')): Promise<unknown> {
  keepAlive ??= oneAtATime(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-watch-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return watcher.subscribe(dir, () => {});
  }).catch(() => null);
  return keepAlive;
}
function oneAtATime<T>(op: () => Promise<T>): Promise<T> {
  const run = queue.then(op, op);
  queue = run.catch(() => undefined);
  return run;
}

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
  const onChanges: Parameters<typeof watcher.subscribe>[1] = (err, events) => {
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
  };
  const subscribeOptions = options.ignore ? { ignore: [...options.ignore] } : {};
  await backendKeptAlive(watcher);
  const subscription = await oneAtATime(() => watcher.subscribe(folder, onChanges, subscribeOptions));
  return toDisposable(async () => {
    if (!open) return;
    open = false;
    // A folder being removed under the watch takes its kernel watches with it: @parcel/watcher then fails
    // to remove them ("Invalid argument"). The watch is over either way, and nobody awaits a dispose.
    await oneAtATime(() => subscription.unsubscribe()).catch(() => undefined);
  });
}
