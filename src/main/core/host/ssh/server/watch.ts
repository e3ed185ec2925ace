import { watch, type FSWatcher } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

type Change = { path: string; kind: 'create' | 'update' | 'delete' };
type Event = { kind: 'changes'; changes: Change[] } | { kind: 'rescan'; reason: string };

/** Whether a path relative to the root is ignored: a pattern names it, a folder above it, or (a bare name) any part of it. */
function ignored(rel: string, patterns: readonly string[]): boolean {
  const parts = rel.split('/');
  return patterns.some((raw) => {
    const p = raw.replace(/^\*\*\//, '').replace(/\/\*\*$/, '').replace(/\/$/, '');
    if (p.includes('*')) return false;
    return p.includes('/') ? rel === p || rel.startsWith(`${p}/`) : parts.includes(p);
  });
}

/**
 * Watches a folder on the host with Node's recursive fs.watch (inotify on Linux; Node ≥ 20), batching
 * changes for 50 ms. A watch error or the folder going away is reported as 'rescan'.
 */
export async function watchFolder(root: string, onEvent: (ev: Event) => void, ignore: readonly string[]): Promise<{ dispose(): void }> {
  const folder = resolve(root);
  const info = await lstat(folder);
  if (!info.isDirectory()) throw new Error(`${folder} is not a folder`);
  let open = true;
  let pending = new Map<string, Change['kind']>();
  let timer: NodeJS.Timeout | null = null;
  const flush = async (): Promise<void> => {
    timer = null;
    const batch = pending;
    pending = new Map();
    const changes: Change[] = [];
    for (const [path, kind] of batch) {
      if (kind === 'update') changes.push({ path, kind });
      else changes.push({ path, kind: (await lstat(path).then(() => true, () => false)) ? 'create' : 'delete' });
    }
    if (!open) return;
    if (!(await lstat(folder).then((i) => i.isDirectory(), () => false))) {
      onEvent({ kind: 'rescan', reason: 'the watched folder was removed' });
      return;
    }
    if (changes.length > 0) onEvent({ kind: 'changes', changes });
  };
  const watcher: FSWatcher = watch(folder, { recursive: true }, (type, name) => {
    if (!open || name === null) return;
    const rel = String(name).split('\\').join('/');
    if (ignored(rel, ignore)) return;
    const path = join(folder, rel);
    pending.set(path, type === 'change' && pending.get(path) !== 'create' ? 'update' : 'create');
    timer ??= setTimeout(() => void flush(), 50);
  });
  watcher.on('error', (e) => {
    if (open) onEvent({ kind: 'rescan', reason: e.message });
  });
  return {
    dispose: () => {
      open = false;
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
