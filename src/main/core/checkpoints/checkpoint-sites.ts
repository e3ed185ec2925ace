import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Host } from '../host/host';
import { RemoteShadowStore, SHADOW_SERVICE, type ShadowCall } from './remote-shadow';
import { ShadowRepo } from './shadow-repo';
import type { ShadowStore } from './shadow-store';

/** Where a folder's checkpoints are taken: its host, and how its path, its presence and its shadow repository are reached there. */
export interface CheckpointSite {
  readonly host: Host;
  /** The folder's real path on its host (rejects when it is not there). */
  realFolder(path: string): Promise<string>;
  isDirectory(path: string): Promise<boolean>;
  store(id: string, folder: string, maxFileBytes: number, excludes: readonly string[]): ShadowStore;
}

/** A folder whose files are this machine's: read here, its shadow repository under `root` (the app's data folder). */
export function localSite(host: Host, root: string): CheckpointSite {
  return {
    host,
    realFolder: (path) => realpath(path),
    isDirectory: (path) => stat(path).then((s) => s.isDirectory(), () => false),
    store: (id, folder, maxFileBytes, excludes) => new ShadowRepo(join(root, id), folder, maxFileBytes, excludes, host),
  };
}

/**
 * A folder on a host with a helper (an SSH host): snapshots are taken there by the helper, into a shadow
 * repository on the host (shadow-helper.ts); presence and real paths are asked of the host's confined files.
 */
export function helperSite(host: Host & Required<Pick<Host, 'helperCall'>>): CheckpointSite {
  const call = (c: ShadowCall, onNote?: (note: unknown) => void) => host.helperCall(SHADOW_SERVICE, c, onNote);
  return {
    host,
    realFolder: async (path) => (await host.files([path])).roots[0]!,
    isDirectory: async (path) => {
      try {
        const files = await host.files([path]);
        return (await files.stat(path)).kind === 'folder';
      } catch {
        return false;
      }
    },
    store: (id, folder, maxFileBytes, excludes) => new RemoteShadowStore(call, id, folder, maxFileBytes, excludes, `~/.switchboard-server/checkpoints/${id}`),
  };
}

/** The site of a host: its helper's when it has one, else this machine's disk. */
export function siteOf(host: Host, root: string): CheckpointSite {
  return host.helperCall ? helperSite(host as Host & Required<Pick<Host, 'helperCall'>>) : localSite(host, root);
}
