import { basename } from 'node:path';
import type { Disposable } from '../base/lifecycle';
import { TEMP_PREFIX } from '../host/files';
import type { Host, WatchEvent } from '../host/host';

/**
 * Switchboard's own temporary files (a snapshot's sync file, an atomic write's temporary) are no change of
 * the folder: reading a review takes a snapshot, whose sync file would otherwise announce a change that makes
 * the review read again, forever (about once a second per open review, with nothing else happening).
 */
function changesSomething(event: WatchEvent): boolean {
  if (event.kind === 'rescan') return true;
  return event.changes.some(({ path }) => !basename(path).startsWith(TEMP_PREFIX));
}

/**
 * Watches the folders whose changes someone is reviewing (the session's "Files changed"), and says, after a
 * quiet moment, that one changed: the review then reads the folder again (a hand edit, a build, another
 * program). At most `max` folders are watched, the ones asked about last; a folder that cannot be watched is
 * only read when asked.
 */
export class FolderWatches implements Disposable {
  private readonly watches = new Map<string, { stop: Promise<Disposable | null>; timer: ReturnType<typeof setTimeout> | null }>();
  private disposed = false;

  constructor(
    private readonly watch: Host['watch'],
    private readonly onChanged: (path: string) => void,
    private readonly options: { max?: number; quietMs?: number; ignore?: readonly string[] } = {},
  ) {}

  /** Starts watching `path` (again the most recent one when it is watched already). */
  add(path: string): void {
    if (this.disposed) return;
    const known = this.watches.get(path);
    if (known) {
      this.watches.delete(path);
      this.watches.set(path, known);
      return;
    }
    const entry: { stop: Promise<Disposable | null>; timer: ReturnType<typeof setTimeout> | null } = { stop: Promise.resolve(null), timer: null };
    entry.stop = this.watch(
      path,
      (event) => {
        if (!changesSomething(event)) return;
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = setTimeout(() => {
          entry.timer = null;
          if (!this.disposed && this.watches.get(path) === entry) this.onChanged(path);
        }, this.options.quietMs ?? 700);
      },
      { ignore: ['.git', ...(this.options.ignore ?? [])] },
    ).catch(() => null);
    this.watches.set(path, entry);
    const max = this.options.max ?? 16;
    while (this.watches.size > max) this.drop(this.watches.keys().next().value!);
  }

  private drop(path: string): void {
    const entry = this.watches.get(path);
    if (!entry) return;
    this.watches.delete(path);
    if (entry.timer) clearTimeout(entry.timer);
    void entry.stop.then((d) => d?.dispose());
  }

  dispose(): void {
    this.disposed = true;
    for (const path of [...this.watches.keys()]) this.drop(path);
  }
}
