import fuzzysort from 'fuzzysort';
import { join } from 'node:path';
import type { Host } from '../../host/host';

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

  constructor(
    private readonly host: Host,
    private readonly roots: readonly string[],
  ) {}

  private async build(): Promise<Index> {
    const files: FileItem[] = [];
    let truncated = false;
    for (const root of this.roots) {
      const left = MAX_FILES - files.length;
      if (left <= 0) {
        truncated = true;
        break;
      }
      const listed = await this.host.listFiles(root, { skipDirs: SKIP_DIRS, maxFiles: left, maxDepth: MAX_DEPTH }).catch(() => ({ files: [], truncated: false }));
      truncated ||= listed.truncated;
      for (const relativePath of listed.files) files.push({ path: join(root, relativePath), relativePath, root, prepared: fuzzysort.prepare(relativePath) });
    }
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
