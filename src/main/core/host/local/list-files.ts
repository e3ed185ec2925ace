import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileList, ListFilesOptions } from '../host';

/**
 * A bounded walk: regular files and symlinks (a symlinked folder is listed, never entered),
 * skipping `skipDirs`; unreadable folders are passed over. Paths are '/'-separated, relative to `root`.
 */
export async function listLocalFiles(root: string, options: ListFilesOptions): Promise<FileList> {
  const files: string[] = [];
  let truncated = false;
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    if (files.length >= options.maxFiles) {
      truncated = true;
      return;
    }
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const subdirs: Array<[string, string]> = [];
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!options.skipDirs?.has(e.name)) subdirs.push([join(dir, e.name), childRel]);
      } else if (e.isFile() || e.isSymbolicLink()) {
        if (files.length >= options.maxFiles) {
          truncated = true;
          return;
        }
        files.push(childRel);
      }
    }
    if (depth >= options.maxDepth) {
      if (subdirs.length > 0) truncated = true;
      return;
    }
    for (const [sub, subRel] of subdirs) await walk(sub, subRel, depth + 1);
  };
  await walk(root, '', 0);
  return { files, truncated };
}
