import fuzzysort from 'fuzzysort';
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

const SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);
const MAX_FILES = 50_000;
const MAX_DEPTH = 20;
const CACHE_MS = 10_000;

interface FileItem {
  path: string;
  relativePath: string;
  root: string;
  prepared: Fuzzysort.Prepared;
}

interface Index {
  at: number;
  files: FileItem[];
  truncated: boolean;
}

/**
 * Fuzzy file search for @-mentions inside a session's roots: a bounded walk (no node_modules/.git, no
 * symlinked folders, at most 50,000 files), cached for a few seconds while the user types.
 */
export class MentionSearch {
  private index: Promise<Index> | null = null;
  private indexAt = 0;

  constructor(private readonly roots: readonly string[]) {}

  private async build(): Promise<Index> {
    const files: FileItem[] = [];
    let truncated = false;
    const walk = async (root: string, dir: string, depth: number): Promise<void> => {
      if (files.length >= MAX_FILES) {
        truncated = true;
        return;
      }
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      const subdirs: string[] = [];
      for (const e of entries) {
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) subdirs.push(join(dir, e.name));
        } else if (e.isFile() || e.isSymbolicLink()) {
          if (files.length >= MAX_FILES) {
            truncated = true;
            return;
          }
          const path = join(dir, e.name);
          const relativePath = relative(root, path);
          files.push({ path, relativePath, root, prepared: fuzzysort.prepare(relativePath) });
        }
      }
      if (depth >= MAX_DEPTH) {
        if (subdirs.length > 0) truncated = true;
        return;
      }
      for (const sub of subdirs) await walk(root, sub, depth + 1);
    };
    for (const root of this.roots) await walk(root, root, 0);
    return { at: Date.now(), files, truncated };
  }

  async search(query: string, limit: number): Promise<{ results: Array<{ path: string; relativePath: string; root: string }>; truncated: boolean }> {
    if (!this.index || Date.now() - this.indexAt > CACHE_MS) {
      this.indexAt = Date.now();
      this.index = this.build();
    }
    const index = await this.index;
    const pick = (f: FileItem) => ({ path: f.path, relativePath: f.relativePath, root: f.root });
    if (!query.trim()) return { results: index.files.slice(0, limit).map(pick), truncated: index.truncated };
    const found = fuzzysort.go(query, index.files, { key: 'prepared', limit });
    return { results: found.map((r) => pick(r.obj)), truncated: index.truncated };
  }
}
