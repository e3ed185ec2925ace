import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
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
 * Watches a folder on the host: one inotify watch (Node's fs.watch) per folder under it, ignored folders not
 * entered, batching changes for 50 ms. Not Node's recursive fs.watch: on Linux it follows each file by its
 * inode, so a file replaced by a rename (every atomic write: an agent's, a restore's) is never reported
 * again. A folder watch reports every name that changes in it, whatever the inode. A folder made (or moved
 * in) is watched as soon as it is seen, and reported once more then, so that what was written in it before
 * its watch began is read. A watch error or the folder going away is reported as 'rescan'.
 */
export async function watchFolder(root: string, onEvent: (ev: Event) => void, ignore: readonly string[]): Promise<{ dispose(): void }> {
  const folder = resolve(root);
  const info = await lstat(folder);
  if (!info.isDirectory()) throw new Error(`${folder} is not a folder`);
  let open = true;
  let pending = new Map<string, Change['kind']>();
  let timer: NodeJS.Timeout | null = null;
  /** The folders watched, by path relative to the root ('' is the root). */
  const dirs = new Map<string, FSWatcher>();
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
  const note = (rel: string, kind: Change['kind']): void => {
    const path = join(folder, rel);
    pending.set(path, kind === 'update' && pending.get(path) !== 'create' ? 'update' : 'create');
    timer ??= setTimeout(() => void flush(), 50);
  };
  const drop = (rel: string): void => {
    for (const [r, w] of dirs) {
      if (r !== rel && !r.startsWith(`${rel}/`)) continue;
      w.close();
      dirs.delete(r);
    }
  };
  const add = async (rel: string, seenLate: boolean): Promise<void> => {
    if (!open || dirs.has(rel)) return;
    const abs = rel === '' ? folder : join(folder, rel);
    let w: FSWatcher;
    try {
      w = watch(abs, (type, name) => {
        if (!open || name === null) return;
        const child = rel === '' ? String(name) : `${rel}/${String(name)}`;
        if (ignored(child, ignore)) return;
        note(child, type === 'change' ? 'update' : 'create');
        if (type === 'rename') void lstat(join(folder, child)).then((st) => (st.isDirectory() ? add(child, true) : undefined), () => drop(child));
      });
    } catch (e) {
      if (rel === '') throw e;
      return;
    }
    w.on('error', (e) => {
      if (rel === '') {
        if (open) onEvent({ kind: 'rescan', reason: e.message });
      } else drop(rel);
    });
    dirs.set(rel, w);
    if (seenLate) note(rel, 'create');
    const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory() && !ignored(child, ignore)) await add(child, seenLate);
    }
  };
  await add('', false);
  return {
    dispose: () => {
      open = false;
      if (timer) clearTimeout(timer);
      for (const w of dirs.values()) w.close();
      dirs.clear();
    },
  };
}
