import { join } from 'node:path';
import type { Host } from '../host/host';
import type { ShadowCall } from './remote-shadow';
import { ShadowRepo } from './shadow-repo';
import type { SnapshotOptions } from './shadow-store';

/** Where the helper keeps the shadow repositories of a host's folders (beside its versions, kept across upgrades). */
export const shadowRoot = (home: string): string => join(home, '.switchboard-server', 'checkpoints');

const ID = /^[0-9a-f]{16}$/;
/** Progress notes of a snapshot at most this often (the session redraws its percentage about as often). */
const NOTE_MS = 100;

/**
 * The helper's side of remote-shadow.ts, run on the SSH host: one ShadowRepo per folder, kept in memory
 * between calls (so that a snapshot after the first reads only what the watch reported), its repository under
 * shadowRoot, and its watch (the host's: the sync before a snapshot is a write and an inotify event there,
 * not round trips). Each call names the folder, the capture settings and whether it is watched, so a helper
 * restarted meanwhile picks up.
 */
export function shadowHelper(home: string, host: Pick<Host, 'git' | 'watch' | 'files'>): (call: unknown, note?: (v: unknown) => void) => Promise<unknown> {
  const repos = new Map<string, ShadowRepo>();
  return async (raw, note) => {
    const c = raw as ShadowCall;
    if (typeof c.id !== 'string' || !ID.test(c.id) || typeof c.folder !== 'string' || !c.folder.startsWith('/')) throw new Error('a shadow repository call without a valid folder');
    let repo = repos.get(c.id);
    if (!repo || repo.folder !== c.folder) {
      repo?.unwatch();
      repo = new ShadowRepo(join(shadowRoot(home), c.id), c.folder, c.maxFileBytes, c.excludes, host);
      repos.set(c.id, repo);
    }
    if (Array.isArray(c.watch) && c.m !== 'unwatch' && c.m !== 'remove') repo.watch(c.watch.filter((x): x is string => typeof x === 'string'));
    const a = c.args;
    switch (c.m) {
      case 'configure':
        return repo.configure(a[0] as number, a[1] as string[]);
      case 'snapshot': {
        const { progress, ...o } = (a[0] ?? {}) as Omit<SnapshotOptions, 'onProgress'> & { progress?: boolean };
        let last = 0;
        const onProgress = (files: number): void => {
          const now = Date.now();
          if (now - last < NOTE_MS) return;
          last = now;
          note?.(files);
        };
        return repo.snapshot({ ...o, ...(progress && note ? { onProgress } : {}) });
      }
      case 'unwatch':
        return repo.unwatch();
      case 'reported':
        return repo.reported();
      case 'flush':
        return repo.flush();
      case 'keep':
        return repo.keep(a[0] as string, a[1] as string);
      case 'forget':
        return repo.forget(a[0] as string[]);
      case 'gc':
        return repo.gc();
      case 'lsTree':
        return [...(await repo.lsTree(a[0] as string))];
      case 'blob':
        return repo.blob(a[0] as string);
      case 'sizes':
        return [...(await repo.sizes(a[0] as string[]))];
      case 'hashObject':
        return repo.hashObject(a[0] as Buffer);
      case 'mergeText':
        return repo.mergeText(a[0] as Buffer, a[1] as Buffer, a[2] as Buffer);
      case 'size':
        return repo.size();
      case 'countFiles':
        return repo.countFiles((a[0] as number | null) ?? Infinity);
      case 'readJournal':
        return repo.readJournal();
      case 'writeJournal':
        return repo.writeJournal(a[0] as string[]);
      case 'clearJournal':
        return repo.clearJournal();
      case 'remove':
        repo.unwatch();
        repos.delete(c.id);
        return repo.remove();
      case 'git':
        return repo.git.run(a[0] as string[], (a[1] ?? {}) as { input?: Buffer | string; okCodes?: number[] });
      default:
        throw new Error(`unknown shadow repository call ${String(c.m)}`);
    }
  };
}
