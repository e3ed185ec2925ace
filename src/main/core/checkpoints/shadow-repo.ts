import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ShadowGit } from './shadow-git';
import type { Host } from '../host/host';
import { TEMP_PREFIX } from '../host/files';

/** A file over the size cap: recorded, content not kept. */
export interface LargeFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface Snapshot {
  tree: string;
  large: LargeFile[];
}

export interface TreeEntry {
  mode: string;
  sha: string;
}

/** Never captured, whatever the settings say: our own temporary files of an interrupted write. */
const BUILTIN_EXCLUDES = [`${TEMP_PREFIX}*`];

const escapeIgnore = (path: string): string => `/${path.replace(/[\\*?[]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')}`;

/**
 * The shadow repository of one folder: its own object store and index under the data folder. A
 * snapshot is `git add -A` into the shadow index + `write-tree`; the folder's .gitignore applies, and
 * info/exclude holds the user's exclude list and the files over the size cap.
 */
export class ShadowRepo {
  readonly git: ShadowGit;
  private large = new Map<string, LargeFile>();
  private excludes: string[] = [];
  private ready: Promise<void> | null = null;
  /** The tree the last snapshot of this process wrote (the shadow index is only changed here). */
  private lastTree: string | null = null;

  constructor(
    readonly dir: string,
    readonly folder: string,
    private maxFileBytes: number,
    excludes: readonly string[],
    host: Host,
  ) {
    this.git = new ShadowGit(dir, folder, host);
    this.excludes = [...excludes];
  }

  async configure(maxFileBytes: number, excludes: readonly string[]): Promise<void> {
    this.maxFileBytes = maxFileBytes;
    this.excludes = [...excludes];
    if (!this.ready) return;
    await this.writeExclude();
    await this.dropIgnored();
  }

  /**
   * Files captured before an exclude pattern or a .gitignore line covered them stay in the index (git
   * only ignores untracked files): drop them. Run at start and when the excludes change, not per snapshot.
   */
  private async dropIgnored(): Promise<void> {
    const out = (await this.git.run(['ls-files', '-z', '--cached', '--ignored', '--exclude-standard'])).stdout.toString('utf8');
    if (out === '') return;
    await this.git.run(['update-index', '--force-remove', '-z', '--stdin'], { input: out });
    this.lastTree = null;
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      if (!existsSync(join(this.dir, 'HEAD'))) {
        await mkdir(this.dir, { recursive: true });
        await this.git.run(['init', '-q', '--template=']);
      }
      // A lock left by a process that died mid-snapshot (snapshots of a folder are serialized in this one).
      await rm(join(this.dir, 'index.lock'), { force: true });
      await mkdir(join(this.dir, 'info'), { recursive: true });
      await mkdir(join(this.dir, 'no-hooks'), { recursive: true });
      // The folder's own .gitattributes must not convert line endings or run filters on what we keep.
      await writeFile(join(this.dir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n');
      try {
        const saved = JSON.parse(await readFile(join(this.dir, 'large.json'), 'utf8')) as LargeFile[];
        this.large = new Map(saved.map((f) => [f.path, f]));
      } catch {
        this.large = new Map();
      }
      await this.writeExclude();
      if (existsSync(join(this.dir, 'index'))) await this.dropIgnored();
    })();
    return this.ready;
  }

  private async writeExclude(): Promise<void> {
    const lines = [...BUILTIN_EXCLUDES, ...this.excludes, ...[...this.large.keys()].filter((p) => !p.includes('\n')).map(escapeIgnore)];
    await writeFile(join(this.dir, 'info', 'exclude'), `${lines.join('\n')}\n`);
    await writeFile(join(this.dir, 'large.json'), JSON.stringify([...this.large.values()]));
  }

  /** Records the folder as it is now. Callers serialize snapshots of one folder (one index). */
  async snapshot(): Promise<Snapshot> {
    await this.init();
    let excludeChanged = false;
    // Known large files: still large? (Gone or shrunk ones are captured again by `add -A`.)
    await Promise.all(
      [...this.large.values()].map(async (f) => {
        const st = await lstat(join(this.folder, f.path)).catch(() => null);
        if (!st || !st.isFile() || st.size <= this.maxFileBytes) {
          this.large.delete(f.path);
          excludeChanged = true;
        } else if (st.size !== f.size || st.mtimeMs !== f.mtimeMs) {
          this.large.set(f.path, { path: f.path, size: st.size, mtimeMs: st.mtimeMs });
          excludeChanged = true;
        }
      }),
    );
    if (excludeChanged) await this.writeExclude();
    const add = await this.git.run(['add', '-A', '-v', '--ignore-errors'], { okCodes: [1] });
    if (add.code !== 0 && /^fatal:/m.test(add.stderr)) throw new Error(`git add failed: ${add.stderr.trim()}`);
    const added: string[] = [];
    let changed = false;
    for (const line of add.stdout.toString('utf8').split('\n')) {
      if (line !== '') changed = true;
      if (line.startsWith("add '") && line.endsWith("'")) added.push(line.slice(5, -1));
    }
    const tooLarge: LargeFile[] = [];
    await Promise.all(
      added.map(async (path) => {
        const st = await lstat(join(this.folder, path)).catch(() => null);
        if (st?.isFile() && st.size > this.maxFileBytes) tooLarge.push({ path, size: st.size, mtimeMs: st.mtimeMs });
      }),
    );
    if (tooLarge.length > 0) {
      await this.git.run(['update-index', '--force-remove', '-z', '--stdin'], { input: tooLarge.map((f) => `${f.path}\0`).join('') });
      for (const f of tooLarge) this.large.set(f.path, f);
      await this.writeExclude();
      // `add` stored their content; no checkpoint refers to it, so it goes now rather than at the next gc.
      await this.git.run(['prune', '--expire=now']);
    }
    // Nothing added or removed: the index, so the tree, is what the last snapshot wrote.
    const tree = !changed && this.lastTree ? this.lastTree : (await this.git.text(['write-tree'])).trim();
    this.lastTree = tree;
    return { tree, large: [...this.large.values()] };
  }

  /** Keeps a snapshot's objects alive (a ref per checkpoint, written as git writes loose refs). */
  async keep(checkpointId: string, tree: string): Promise<void> {
    const dir = join(this.dir, 'refs', 'switchboard');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, checkpointId), `${tree}\n`);
  }

  async forget(checkpointIds: readonly string[]): Promise<void> {
    if (checkpointIds.length === 0) return;
    await this.init();
    const input = checkpointIds.map((id) => `delete refs/switchboard/${id}\n`).join('');
    await this.git.run(['update-ref', '--stdin'], { input });
  }

  /** Drops objects no checkpoint refers to any more. */
  async gc(): Promise<void> {
    await this.init();
    await this.git.run(['gc', '--quiet', '--prune=now']);
  }

  async lsTree(tree: string): Promise<Map<string, TreeEntry>> {
    const out = (await this.git.run(['ls-tree', '-r', '-z', '--full-tree', tree])).stdout.toString('utf8');
    const map = new Map<string, TreeEntry>();
    for (const rec of out.split('\0')) {
      if (!rec) continue;
      const tab = rec.indexOf('\t');
      const [mode, , sha] = rec.slice(0, tab).split(' ');
      map.set(rec.slice(tab + 1), { mode: mode!, sha: sha! });
    }
    return map;
  }

  async blob(sha: string): Promise<Buffer> {
    return (await this.git.run(['cat-file', 'blob', sha])).stdout;
  }

  async sizes(shas: readonly string[]): Promise<Map<string, number>> {
    const map = new Map<string, number>();
    if (shas.length === 0) return map;
    const out = await this.git.text(['cat-file', '--batch-check=%(objectname) %(objectsize)'], `${shas.join('\n')}\n`);
    for (const line of out.split('\n')) {
      const [sha, size] = line.split(' ');
      if (sha && size && /^\d+$/.test(size)) map.set(sha, Number(size));
    }
    return map;
  }

  async hashObject(content: Buffer): Promise<string> {
    return (await this.git.run(['hash-object', '-w', '--stdin'], { input: content })).stdout.toString('utf8').trim();
  }

  /** Three-way merge of texts (git merge-file): the merged text, or null when it conflicts. */
  async mergeText(base: Buffer, ours: Buffer, theirs: Buffer): Promise<Buffer | null> {
    const tmp = join(this.dir, 'merge-tmp');
    await mkdir(tmp, { recursive: true });
    const files = ['current', 'base', 'target'].map((n) => join(tmp, n));
    await Promise.all([writeFile(files[0]!, ours), writeFile(files[1]!, base), writeFile(files[2]!, theirs)]);
    try {
      const out = await this.git.run(['merge-file', '-p', files[0]!, files[1]!, files[2]!], { okCodes: Array.from({ length: 127 }, (_, i) => i + 1) });
      if (out.code < 0 || out.code > 127) throw new Error(`git merge-file failed: ${out.stderr.trim()}`);
      return out.code === 0 ? out.stdout : null;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** Bytes on disk. */
  async size(): Promise<number> {
    return dirSize(this.dir);
  }
}

async function dirSize(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const sizes = await Promise.all(
    entries.map(async (e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return dirSize(p);
      return e.isFile() ? (await stat(p).catch(() => ({ size: 0 }))).size : 0;
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

export async function removeShadow(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await unlink(`${dir}.lock`).catch(() => {});
}
